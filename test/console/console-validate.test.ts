import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client/client.js';
import { startConsole, type RunningConsole } from '../../src/console/server/listen.js';
import { builtCli } from '../helpers/console.js';
import { auditEnv } from '../helpers/temp.js';

/**
 * Issue 25: the call form's inline validation (`POST /api/validate`) says what the server
 * itself would answer a call with those arguments, word for word, and refuses hostile input
 * with a clear 4xx. The server is the built CLI (`serve --tools`) over stdio.
 */
const fixture = 'test/fixtures/console/validate-tools.mjs';
const serverCommand = [builtCli, 'serve', '--tools', fixture];
let running: RunningConsole;
let token: string;

beforeAll(async () => {
  running = await startConsole({ version: '0.0.0-test' });
  token = /token=([A-Za-z0-9_-]+)/.exec(running.url)?.[1] ?? '';
  const connected = await post('/api/connect', JSON.stringify({ command: process.execPath, args: serverCommand, env: auditEnv() }));
  expect(connected.status, connected.body).toBe(200);
}, 30_000);
afterAll(() => running?.close());

function post(path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: running.port,
        method: 'POST',
        path,
        headers: { Origin: `http://127.0.0.1:${running.port}`, 'X-Console-Token': token, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function validate(tool: unknown, args: unknown): Promise<{ status: number; answer: Record<string, unknown> }> {
  const res = await post('/api/validate', JSON.stringify({ tool, arguments: args }));
  return { status: res.status, answer: JSON.parse(res.body) as Record<string, unknown> };
}

describe('POST /api/validate', () => {
  it("answers the server's own messages for bad arguments, each with the field's path", async () => {
    const bad = { room: 'A', guests: 11, contact: 'not-an-email', extra: true };
    const { status, answer } = await validate('book_room', bad);
    expect(status).toBe(200);
    expect(answer.valid).toBe(false);
    const problems = answer.problems as Array<{ path: string; message: string }>;
    const client = await ToolClient.connect({ command: process.execPath, args: serverCommand, env: auditEnv() });
    try {
      const result = await client.callTool('book_room', bad);
      expect(result.isError).toBe(true);
      const text = (result.content[0] as { text: string }).text;
      const serverLines = text.split('\n- ').slice(1);
      expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual(serverLines);
    } finally {
      await client.close();
    }
    expect(problems.map((p) => p.path).sort()).toEqual(['arguments.contact', 'arguments.extra', 'arguments.guests', 'arguments.room'].sort());
    expect(problems.find((p) => p.path === 'arguments.guests')?.message).toBe('must be <= 10');
  }, 30_000);

  it('names a missing required field by its own path, and says valid for good arguments', async () => {
    const missing = await validate('book_room', { room: 'Atlas' });
    expect(missing.answer.problems).toEqual([{ path: 'arguments.guests', message: 'required field is missing' }]);
    const good = await validate('book_room', { room: 'Atlas', guests: 3 });
    expect(good.answer).toEqual({ valid: true, problems: [] });
  });

  it('refuses an unknown tool, arguments that are not an object, and a missing tool name', async () => {
    const unknown = await validate('no_such_tool<script>', {});
    expect(unknown.status).toBe(404);
    expect((unknown.answer.error as { message: string }).message).toMatch(/no tool named/);
    for (const args of [[1, 2], 'text', 42, true]) {
      const res = await validate('book_room', args);
      expect(res.status, JSON.stringify(args)).toBe(400);
      expect((res.answer.error as { message: string }).message).toBe('arguments must be a JSON object');
    }
    expect((await validate(undefined, {})).status).toBe(400);
    expect((await validate({ name: 'book_room' }, {})).status).toBe(400);
  });

  it('bounds its answer for huge input, and refuses a body over the limit', async () => {
    const many: Record<string, number> = { room: 'Atlas', guests: 2 } as never;
    for (let i = 0; i < 50_000; i++) many[`x${i}`] = i;
    const { status, answer } = await validate('book_room', many);
    expect(status).toBe(200);
    const problems = answer.problems as Array<{ message: string }>;
    expect(problems.length).toBeLessThanOrEqual(11);
    expect(problems.at(-1)?.message).toMatch(/more problems/);
    const tooBig = await post('/api/validate', JSON.stringify({ tool: 'book_room', arguments: { room: 'x'.repeat(5 * 1024 * 1024) } }));
    expect(tooBig.status).toBe(413);
  }, 30_000);
});
