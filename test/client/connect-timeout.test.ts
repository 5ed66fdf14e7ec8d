import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, StdioClientTransport, ToolClient } from '../../src/client.js';

/** A program that reads stdin and never writes a byte: not an MCP server. */
const SILENT = ['-e', 'process.stdin.resume(); setInterval(() => {}, 1000);'];

let http: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (http ? (http.closeAllConnections(), http.close(() => resolve())) : resolve()));
  http = undefined;
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('connectTimeoutMs: a server that never answers', () => {
  it('fails a silent stdio program in time, says what it waited for, and stops the program', async () => {
    const transport = await StdioClientTransport.start({ command: process.execPath, args: SILENT }, { closeGraceMs: 200 });
    const err = await ToolClient.connect({ transport }, { connectTimeoutMs: 400, onWarning: () => {} }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.reason).toBe('connect-timeout');
    expect(err.message).toMatch(/did not answer within 400 ms while connecting: no answer to server\/discover; is the command an MCP server/);
    expect(alive(transport.pid!)).toBe(false);
  });

  it('bounds the whole connect: a program that ignores stdin closing is stopped at once, not after closeGraceMs', async () => {
    // A grace longer than the test's own timeout: were it waited for, the test would time out.
    const transport = await StdioClientTransport.start({ command: process.execPath, args: SILENT }, { closeGraceMs: 600_000 });
    const err = await ToolClient.connect({ transport }, { connectTimeoutMs: 300, onWarning: () => {} }).catch((e) => e);
    expect(err.reason).toBe('connect-timeout');
    expect(alive(transport.pid!)).toBe(false);
  });

  it('names initialize when that is what the server left unanswered', async () => {
    const err = await ToolClient.connect(
      { command: process.execPath, args: SILENT, stderr: 'ignore' },
      { era: 'legacy', connectTimeoutMs: 300, closeGraceMs: 200, onWarning: () => {} },
    ).catch((e) => e);
    expect(err.reason).toBe('connect-timeout');
    expect(err.message).toMatch(/no answer to initialize/);
  });

  it('fails an HTTP endpoint that accepts and never responds', async () => {
    http = createServer(() => {
      /* holds every request open */
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const err = await ToolClient.connect({ url }, { connectTimeoutMs: 300, onWarning: () => {} }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/within 300 ms while connecting: no answer to server\/discover$/);
  });
});
