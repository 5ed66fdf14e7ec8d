import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, ProtocolViolationError, TimeoutError, ToolClient } from '../../src/client.js';
import type { StdioTarget, ToolClientOptions } from '../../src/client.js';
import { isAlive } from '../helpers/process.js';
import { auditEnv } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/client/${name}`, import.meta.url));
const toolwright: StdioTarget = { command: process.execPath, args: tsProgram(fixture('stdio-toolwright.ts')), stderr: 'capture', env: auditEnv() };
const raw = (mode: string): StdioTarget => ({ command: process.execPath, args: [fixture('stdio-raw.mjs'), mode], stderr: 'capture', env: auditEnv() });

const clients: ToolClient[] = [];
async function connect(target: StdioTarget, options: ToolClientOptions = {}): Promise<ToolClient> {
  const client = await ToolClient.connect(target, { onWarning: () => {}, ...options });
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** What these tests read of the transport behind a client. */
interface StdioInternals {
  pid: number;
  child: { exitCode: number | null; signalCode: NodeJS.Signals | null };
  capturedStderr(): string | undefined;
}

describe('ToolClient over stdio (real child processes)', () => {
  it('talks modern to a toolwright server and validates structured output', async () => {
    const client = await connect(toolwright);
    expect([client.era, client.serverInfo?.name]).toEqual(['modern', 'fixture']);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add', 'wait_for_cancel', 'crash']);
    const result = await client.callTool('add', { a: 20, b: 22 });
    expect(result.structuredContent).toEqual({ sum: 42 });
  });

  it('talks legacy to the same server when asked', async () => {
    const client = await connect(toolwright, { era: 'legacy' });
    expect(client.era).toBe('legacy');
    expect((await client.callTool('add', { a: 1, b: 2 })).structuredContent).toEqual({ sum: 3 });
  });

  it('sends notifications/cancelled on timeout, and the server stops the handler', async () => {
    const stderr: string[] = [];
    const client = await connect({ ...toolwright, onStderr: (text) => stderr.push(text) });
    const err = await client.callTool('wait_for_cancel', {}, { timeoutMs: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    await expect.poll(() => stderr.join('')).toMatch(/cancelled \d+/);
  });

  it('fails pending calls with the exit code and stderr when the server dies', async () => {
    const client = await connect(toolwright);
    const err = await client.callTool('crash').catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.reason).toBe('exit');
    expect(err.message).toMatch(/exited with code 7/);
    expect(err.stderr).toMatch(/about to crash/);
  });

  it('falls back to initialize against a legacy-only server', async () => {
    const client = await connect(raw('legacy'));
    expect([client.era, client.protocolVersion, client.serverInfo?.name]).toEqual(['legacy', '2025-06-18', 'raw-legacy']);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
  });

  it('ignores non-JSON lines on stdout and still gets its answers', async () => {
    const warnings: string[] = [];
    const client = await connect(raw('noisy'), { onWarning: (w) => warnings.push(w) });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
    expect(warnings.some((w) => /invalid message/.test(w))).toBe(true);
  });

  it('refuses a message larger than maxMessageBytes', async () => {
    const client = await connect(raw('huge'), { maxMessageBytes: 64 * 1024 });
    await expect(client.listTools()).rejects.toBeInstanceOf(ProtocolViolationError);
  });

  it('reports a command that does not exist', async () => {
    const err = await connect({ command: 'toolwright-no-such-command-xyz' }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.reason).toBe('spawn');
    expect(err.message).toMatch(/command not found/);
  });

  it('escalates to SIGKILL when the server ignores stdin EOF and SIGTERM', async () => {
    const client = await ToolClient.connect(raw('stubborn'), { closeGraceMs: 200, onWarning: () => {} });
    const transport = (client as unknown as { session: { transport: StdioInternals } }).session.transport;
    const pid = transport.pid;
    expect(isAlive(pid)).toBe(true);
    await client.close();
    // SIGTERM was sent (the server said it ignored it), and SIGKILL ended it.
    expect(transport.capturedStderr()).toContain('ignoring SIGTERM');
    expect(transport.child.signalCode).toBe('SIGKILL');
    expect(isAlive(pid)).toBe(false);
  });

  it('lets a well-behaved server exit on stdin EOF without signals', async () => {
    const client = await ToolClient.connect(toolwright, { closeGraceMs: 5_000, onWarning: () => {} });
    const transport = (client as unknown as { session: { transport: StdioInternals } }).session.transport;
    await client.close();
    expect([transport.child.exitCode, transport.child.signalCode]).toEqual([0, null]);
  });
});
