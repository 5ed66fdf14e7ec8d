/**
 * Resource subscriptions through the gateway: a client that subscribes to a mounted resource
 * (legacy resources/subscribe, or a modern listen stream's resourceSubscriptions) makes the gateway
 * subscribe upstream, and the upstream's update reaches the client under the gateway's URI.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mount, type MountHandle } from '../../src/gateway/index.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
upstream.resources.add({ uri: 'notes://today', name: 'today', read: () => 'buy milk' });
const { server } = gatewayServer();
let http: HttpServerHandle;
let m: MountHandle;

beforeAll(async () => {
  m = mount(server, 'notes', { server: upstream });
  await m.ready;
  // Resources are listed after the tools that `ready` waits for.
  for (let i = 0; i < 100 && !server.resources.get('notes+notes://today'); i++) await new Promise((r) => setTimeout(r, 50));
  http = await serveHttp(server, { port: 0 });
});
afterAll(async () => {
  await http?.close();
  await m?.close();
});

describe('resource updates', () => {
  it('a legacy client (SDK 1.x) that subscribes hears the upstream change', async () => {
    const client = new ClientV1({ name: 'gw-sub-v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(http.url)));
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    try {
      expect((await client.readResource({ uri: 'notes+notes://today' })).contents[0]).toMatchObject({ text: 'buy milk' });
      await client.subscribeResource({ uri: 'notes+notes://today' });
      // The gateway subscribes upstream in the background: keep changing until the change is heard.
      await expect
        .poll(
          () => {
            upstream.resources.updated('notes://today');
            return updated;
          },
          { timeout: 5_000, interval: 100 },
        )
        .toContain('notes+notes://today');
    } finally {
      await client.close();
    }
  });

  it('a modern client (SDK 2.x) that listens for it hears the upstream change', async () => {
    const client = new ClientV2({ name: 'gw-sub-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    await client.connect(new HttpV2(new URL(http.url)), { timeout: 10_000 });
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n: any) => void updated.push(n.params.uri));
    const stream = await (client as any).listen({ resourceSubscriptions: ['notes+notes://today'] });
    try {
      await expect
        .poll(
          () => {
            upstream.resources.updated('notes://today');
            return updated;
          },
          { timeout: 5_000, interval: 100 },
        )
        .toContain('notes+notes://today');
    } finally {
      await stream?.close();
      await client.close();
    }
  });
});
