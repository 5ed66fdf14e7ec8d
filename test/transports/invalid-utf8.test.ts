import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { startHttp } from '../helpers/http.js';
import { killAndReap } from '../helpers/process.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';
import { tsProgram } from '../helpers/ts-program.js';

/**
 * Messages must be UTF-8 (JSON text, RFC 8259 §8.1). Bytes that are not —
 * overlong forms, encoded surrogates, cut sequences, stray continuation
 * bytes — are a parse error, never "repaired" into U+FFFD and executed.
 */
const BAD_BYTES: Record<string, number[]> = {
  'overlong "/" (C0 AF)': [0xc0, 0xaf],
  'overlong NUL (E0 80 80)': [0xe0, 0x80, 0x80],
  'encoded surrogate (ED A0 80)': [0xed, 0xa0, 0x80],
  'truncated sequence (E2 82)': [0xe2, 0x82],
  'stray continuation byte (80)': [0x80],
  'beyond U+10FFFF (F4 90 80 80)': [0xf4, 0x90, 0x80, 0x80],
  'invalid byte (FF)': [0xff],
};

/** A tools/call of echo whose text holds `bytes` between "a" and "b". */
function callWith(bytes: number[], id: number): Buffer {
  const [head, tail] = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'a\u0000b' }, _meta: modernMeta() },
  }).split('\\u0000');
  return Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
}

describe('invalid UTF-8 over HTTP', () => {
  let http: Awaited<ReturnType<typeof startHttp>>;
  const executed: string[] = [];
  beforeAll(async () => {
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false });
    server.tools.add({
      name: 'echo',
      description: 'x',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: ({ text }) => (executed.push(String(text)), String(text)),
    });
    http = await startHttp(server);
  });
  afterAll(() => http.close());

  const send = (bytes: Buffer) =>
    fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      // fetch's BodyInit takes a view over an ArrayBuffer, not Buffer's ArrayBufferLike: the same bytes, copied.
      body: new Uint8Array(bytes),
    });

  for (const [name, bytes] of Object.entries(BAD_BYTES)) {
    it(`answers ${name} with a parse error (400) and runs nothing`, async () => {
      const res = await send(callWith(bytes, 1));
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe(-32700);
      expect(body.error.message).toMatch(/UTF-8/);
      expect(executed).toEqual([]);
    });
  }

  it('refuses an unpaired surrogate spelled as a JSON escape the same way', async () => {
    const res = await send(
      Buffer.from(
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: '\ud800' }, _meta: modernMeta() } }),
      ),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
    expect(executed).toEqual([]);
  });

  it('still runs text with real multi-byte characters', async () => {
    const res = await send(
      Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'é€😀' }, _meta: modernMeta() } })),
    );
    expect((await res.json()).result.content[0].text).toBe('é€😀');
    expect(executed).toEqual(['é€😀']);
  });
});

describe('invalid UTF-8 over stdio (child process)', () => {
  const fixture = fileURLToPath(new URL('../fixtures/stdio-server.ts', import.meta.url));
  let child: ChildProcessWithoutNullStreams | undefined;
  afterEach(() => killAndReap(child));

  function start() {
    child = spawn(process.execPath, tsProgram(fixture), { env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn' } });
    const lines: string[] = [];
    let buffer = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      buffer += d;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        lines.push(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    const until = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while (lines.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return lines.slice(0, count).map((l) => JSON.parse(l));
    };
    return { child, lines, until, stderr: () => stderr };
  }

  it('answers each invalid line with a parse error without an id, runs none of them, and goes on serving', async () => {
    const s = start();
    const bad = Object.values(BAD_BYTES);
    // All the bad lines and a good one in one write (the splitter's one-chunk path) ...
    s.child.stdin.write(Buffer.concat([...bad.map((b, i) => Buffer.concat([callWith(b, 10 + i), Buffer.from('\n')])), callWith([0x21], 1), Buffer.from('\n')]));
    const replies = await s.until(bad.length + 1);
    const errors = replies.filter((r) => r.error);
    expect(errors).toHaveLength(bad.length);
    for (const e of errors) {
      expect(e.error.code).toBe(-32700);
      expect(e.error.message).toMatch(/UTF-8/);
      expect('id' in e).toBe(false);
    }
    expect(replies.find((r) => r.id === 1).result.content[0].text).toBe('a!b');
    // ... and a bad line spread over writes (the splitter's buffered path).
    const spread = Buffer.concat([callWith([0xed, 0xa0, 0x80], 20), Buffer.from('\n')]);
    s.child.stdin.write(spread.subarray(0, 100));
    await new Promise((r) => setTimeout(r, 30));
    s.child.stdin.write(spread.subarray(100));
    s.child.stdin.write(Buffer.concat([callWith([0x3f], 2), Buffer.from('\n')]));
    const more = await s.until(bad.length + 3);
    expect(more[bad.length + 1].error.code).toBe(-32700);
    expect(more[bad.length + 2].result.content[0].text).toBe('a?b');
    // The echo tool prints a line to stderr each time it runs: twice, for the two good calls.
    expect(s.stderr().match(/a careless debug print/g)).toHaveLength(2);
  });

  it('accepts a valid multi-byte character whose bytes arrive in separate writes', async () => {
    const s = start();
    const line = Buffer.concat([callWith([0xf0, 0x9f, 0x98, 0x80], 3), Buffer.from('\n')]); // 😀
    const cut = line.indexOf(0x9f);
    s.child.stdin.write(line.subarray(0, cut));
    await new Promise((r) => setTimeout(r, 30));
    s.child.stdin.write(line.subarray(cut, cut + 1));
    await new Promise((r) => setTimeout(r, 30));
    s.child.stdin.write(line.subarray(cut + 1));
    const [reply] = await s.until(1);
    expect(reply.result.content[0].text).toBe('a😀b');
  });
});
