/**
 * An HTTP upstream nobody here wrote: server-everything over Streamable HTTP (the official SDK's
 * server, legacy era with sessions), mounted by URL; the client detects its era. And an upstream's
 * log messages reaching the client of the call they came with.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mount, type MountHandle } from '../../src/gateway/index.js';
import { createInMemoryPair } from '../../src/testing.js';
import { freePort } from '../helpers/free-port.js';
import { killAndReap } from '../helpers/process.js';
import { EVERYTHING, gatewayServer } from './helpers.js';

let child: ReturnType<typeof spawn>;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  child = spawn(EVERYTHING, ['streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((done, fail) => {
    let said = '';
    child.stderr!.on('data', (d: Buffer) => {
      said += d.toString();
      if (said.includes('listening on port')) done();
    });
    child.once('exit', () => fail(new Error(`server-everything exited: ${said}`)));
  });
  url = `http://127.0.0.1:${port}/mcp`;
}, 30_000);
afterAll(() => killAndReap(child));

describe('an HTTP upstream', () => {
  it('server-everything over Streamable HTTP: listed, called, with progress', async () => {
    const { server } = gatewayServer();
    const m: MountHandle = mount(server, 'remote', { url });
    await m.ready;
    expect(server.tools.names()).toContain('remote_echo');
    const { client, close } = await createInMemoryPair(server);
    try {
      const echo = await client.callTool('remote_echo', { message: 'over HTTP' });
      expect(echo.content).toEqual([{ type: 'text', text: 'Echo: over HTTP' }]);
      const seen: number[] = [];
      const done = await client.callTool('remote_trigger-long-running-operation', { duration: 1, steps: 2 }, { onProgress: (p) => seen.push(p.progress) });
      expect(done.isError ?? false).toBe(false);
      expect(seen).toEqual([1, 2]);
    } finally {
      await close();
      await m.close();
    }
  }, 30_000);
});

describe('log messages', () => {
  it('reach the client whose call was the only one in flight to that upstream', async () => {
    const { server } = gatewayServer();
    const fixture = resolve('test/gateway/fixtures/scripted-upstream.mjs');
    const m = mount(server, 'noisy', { command: process.execPath, args: [fixture], env: { BEHAVIOUR: 'flood' } });
    await m.ready;
    const logs: unknown[] = [];
    const { client, close } = await createInMemoryPair(server, { logLevel: 'info', onLog: (message) => logs.push(message.data) });
    try {
      const result = await client.callTool('noisy_echo', { text: 'hi' });
      expect(result.isError ?? false).toBe(false);
      await expect.poll(() => logs.length, { timeout: 5_000 }).toBeGreaterThan(0);
      expect(String(logs[0])).toMatch(/^flood \d+$/);
    } finally {
      await close();
      await m.close();
    }
  }, 30_000);
});
