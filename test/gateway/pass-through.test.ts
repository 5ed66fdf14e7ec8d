/**
 * What passes through the gateway besides calls: cancellation (reaching the upstream with the
 * upstream's own request id), list changes (reaching clients of both eras), and the client's
 * Authorization header (never, unless an upstream says so).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mount, type MountHandle } from '../../src/gateway/index.js';
import { defineTool } from '../../src/server/tool.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

const SCRIPTED = resolve('test/gateway/fixtures/scripted-upstream.mjs');
const dir = mkdtempSync(join(tmpdir(), 'tw-gateway-pass-'));
const recordFile = join(dir, 'upstream.jsonl');
const { server } = gatewayServer();
let http: HttpServerHandle;
let scripted: MountHandle;

beforeAll(async () => {
  scripted = mount(server, 'scripted', { command: process.execPath, args: [SCRIPTED], env: { RECORD_FILE: recordFile } });
  await scripted.ready;
  http = await serveHttp(server, { port: 0 });
}, 30_000);

afterAll(async () => {
  await http?.close();
  await scripted?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the upstream received, in order. */
function received(): Array<{ id?: number | string; method?: string; params?: Record<string, any> }> {
  if (!existsSync(recordFile)) return [];
  return readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Cancels a call of `scripted_wait` from the client and returns what the upstream then saw: its call and the cancellation. */
async function cancelledUpstream(startCall: (signal: AbortSignal) => Promise<unknown>) {
  const before = received().length;
  const controller = new AbortController();
  const call = startCall(controller.signal).catch((e: unknown) => e);
  await expect
    .poll(
      () =>
        received()
          .slice(before)
          .some((m) => m.method === 'tools/call'),
      { timeout: 10_000 },
    )
    .toBe(true);
  controller.abort();
  await call;
  await expect
    .poll(
      () =>
        received()
          .slice(before)
          .some((m) => m.method === 'notifications/cancelled'),
      { timeout: 2_000 },
    )
    .toBe(true);
  const seen = received().slice(before);
  return { call: seen.find((m) => m.method === 'tools/call')!, cancelled: seen.find((m) => m.method === 'notifications/cancelled')! };
}

describe('cancellation', () => {
  it('a legacy client (SDK 1.x) that cancels: the upstream gets notifications/cancelled for ITS request id', async () => {
    const client = new ClientV1({ name: 'gw-cancel-v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(http.url)));
    try {
      const { call, cancelled } = await cancelledUpstream((signal) => client.callTool({ name: 'scripted_wait', arguments: {} }, undefined, { signal }));
      expect(call.params?.name).toBe('wait');
      expect(cancelled.params?.requestId).toBe(call.id);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('a modern client (SDK 2.x) that aborts: the upstream gets notifications/cancelled for its request id', async () => {
    const client = new ClientV2({ name: 'gw-cancel-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    await client.connect(new HttpV2(new URL(http.url)), { timeout: 10_000 });
    try {
      const { call, cancelled } = await cancelledUpstream((signal) => client.callTool({ name: 'scripted_wait', arguments: {} }, { signal } as never));
      expect(cancelled.params?.requestId).toBe(call.id);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('list changes', () => {
  it('an upstream that adds a tool: legacy and modern clients hear list_changed and list the new tool', async () => {
    const legacy = new ClientV1({ name: 'gw-list-v1', version: '1.0.0' });
    const heardLegacy: string[] = [];
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void heardLegacy.push('changed'));
    await legacy.connect(new HttpV1(new URL(http.url)));
    const modern = new ClientV2({ name: 'gw-list-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    const heardModern: string[] = [];
    modern.setNotificationHandler('notifications/tools/list_changed', () => void heardModern.push('changed'));
    await modern.connect(new HttpV2(new URL(http.url)), { timeout: 10_000 });
    const stream = await (modern as any).listen({ toolsListChanged: true });
    try {
      // The legacy client's GET stream is open once the SDK has sent its first request after initialize.
      await legacy.listTools();
      const added = await legacy.callTool({ name: 'scripted_add_tool', arguments: {} });
      const name = `scripted_${String((added.content as Array<{ text: string }>)[0].text).replace('added ', '')}`;
      await expect.poll(() => heardLegacy.length, { timeout: 3_000 }).toBeGreaterThan(0);
      await expect.poll(() => heardModern.length, { timeout: 3_000 }).toBeGreaterThan(0);
      expect((await legacy.listTools()).tools.map((t) => t.name)).toContain(name);
      expect((await modern.listTools()).tools.map((t) => t.name)).toContain(name);
    } finally {
      await stream?.close();
      await legacy.close();
      await modern.close();
    }
  }, 30_000);
});

describe('Authorization', () => {
  it('is not forwarded to an upstream unless it says forwardAuthorization: true', async () => {
    const seen: Array<string | undefined> = [];
    const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
    upstream.addTool(defineTool({ name: 'whoami', description: 'who', inputSchema: { type: 'object' }, handler: () => 'ok' }));
    const upstreamHttp = await serveHttp(upstream, {
      port: 0,
      authenticate: (req) => {
        seen.push(req.headers.authorization);
        return 'gateway';
      },
    });
    const { server: gateway } = gatewayServer();
    const closed = mount(gateway, 'closed', { url: upstreamHttp.url, headers: { 'X-Api-Key': 'upstream-own-key' } });
    const forwards = mount(gateway, 'forwards', { url: upstreamHttp.url, forwardAuthorization: true });
    await Promise.all([closed.ready, forwards.ready]);
    const gatewayHttp = await serveHttp(gateway, { port: 0 });
    const client = new ClientV1({ name: 'gw-auth', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(gatewayHttp.url), { requestInit: { headers: { Authorization: 'Bearer client-secret' } } }));
    try {
      seen.length = 0;
      await client.callTool({ name: 'closed_whoami', arguments: {} });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen).not.toContain('Bearer client-secret');
      seen.length = 0;
      await client.callTool({ name: 'forwards_whoami', arguments: {} });
      expect(seen).toContain('Bearer client-secret');
    } finally {
      await client.close();
      await gatewayHttp.close();
      await Promise.all([closed.close(), forwards.close()]);
      await upstreamHttp.close();
    }
  }, 30_000);
});
