/**
 * A program that mounts upstreams itself gets the health resource `toolwright://gateway/upstreams`
 * without asking: the first mount on a server adds it (listing every mount of that server), the
 * last one's close removes it, `health: false` leaves an upstream out, scopes given with `health`
 * hold, and `Gateway.serveHealth()` beside the mounts' own keeps one resource naming each once.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client/client.js';
import { ExitCode } from '../../src/cli/errors.js';
import { GATEWAY_HEALTH_URI, parseUpstreamHealth, type ReportedUpstream as UpstreamHealthReport } from '../../src/client/doctor/upstreams.js';
import { Gateway, mount, serveUpstreamHealth } from '../../src/gateway/index.js';
import { InProcessTransport } from '../../src/gateway/memory-transport.js';
import type { Caller } from '../../src/policy/auth/caller.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { serveHttp } from '../../src/transports/http-server.js';
import { builtCli } from '../helpers/cli-process.js';
import { runCliCaptured } from '../helpers/cli.js';
import { auditEnv } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function upstreamServer() {
  const server = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  server.addTool(defineTool({ name: 'add', description: 'adds', inputSchema: { type: 'object' }, handler: () => '3' }));
  return server;
}

/** Another toolwright as a child process (stdio), serving one tool. */
const CHILD = { command: process.execPath, args: [builtCli, 'serve', '--stdio', '--tools', resolve('test/fixtures/cli/tools.mjs')], env: auditEnv() };

async function connected(server: ToolServer, caller?: Caller) {
  if (!caller) {
    const pair = await createInMemoryPair(server);
    closers.push(() => pair.close());
    return pair.client;
  }
  const transport = new InProcessTransport(server, () => {}, { transport: 'test', caller });
  const client = await ToolClient.connect({ transport }, { onWarning: () => {} });
  closers.push(() => client.close());
  return client;
}

async function listedUris(client: ToolClient): Promise<string[]> {
  return (await client.listResources()).map((r) => r.uri);
}

async function readHealth(client: ToolClient): Promise<UpstreamHealthReport[]> {
  const read = await client.readResource(GATEWAY_HEALTH_URI);
  return parseUpstreamHealth(String((read.contents[0] as { text: string }).text))!;
}

describe('mount serves the health resource', () => {
  it('the first mount adds it, listing every mount of the server; the last close removes it', async () => {
    const { server } = gatewayServer();
    const calc = mount(server, 'calc', { server: upstreamServer() });
    closers.push(() => calc.close());
    await calc.ready;
    const client = await connected(server);
    expect(await listedUris(client)).toContain(GATEWAY_HEALTH_URI);
    expect(await readHealth(client)).toEqual([{ name: 'calc', kind: 'server', state: 'up', tools: 1, prompts: 0, resources: 0, restarts: 0 }]);

    const loud = mount(server, 'loud', CHILD);
    closers.push(() => loud.close());
    await loud.ready;
    expect(await readHealth(client)).toEqual([
      { name: 'calc', kind: 'server', state: 'up', tools: 1, prompts: 0, resources: 0, restarts: 0 },
      { name: 'loud', kind: 'stdio', state: 'up', tools: 1, prompts: 0, resources: 0, restarts: 0 },
    ]);

    await calc.close();
    expect((await readHealth(client)).map((u) => u.name)).toEqual(['loud']);
    await loud.close();
    expect(await listedUris(client)).not.toContain(GATEWAY_HEALTH_URI);
    await expect(client.readResource(GATEWAY_HEALTH_URI)).rejects.toThrow();

    // Mounting again serves it again.
    const again = mount(server, 'again', { server: upstreamServer() });
    closers.push(() => again.close());
    expect(await listedUris(client)).toContain(GATEWAY_HEALTH_URI);
  }, 30_000);

  it('`health: false` leaves the upstream out, and the resource unserved when no mount serves it', async () => {
    const { server } = gatewayServer();
    const quiet = mount(server, 'quiet', { server: upstreamServer() }, { health: false });
    closers.push(() => quiet.close());
    await quiet.ready;
    const client = await connected(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['quiet_add']);
    expect(await listedUris(client)).not.toContain(GATEWAY_HEALTH_URI);
    const shown = mount(server, 'shown', { server: upstreamServer() });
    closers.push(() => shown.close());
    await shown.ready;
    expect((await readHealth(client)).map((u) => u.name)).toEqual(['shown']);
  });

  it('`health: { scopes, visibilityScopes }` restrict it: a caller without them neither sees nor reads it', async () => {
    const { server } = gatewayServer();
    const calc = mount(server, 'calc', { server: upstreamServer() }, { health: { visibilityScopes: ['ops'] } });
    closers.push(() => calc.close());
    await calc.ready;
    const outsider = await connected(server, { id: 'eve', scopes: [], claims: {}, method: 'transport' });
    expect(await listedUris(outsider)).not.toContain(GATEWAY_HEALTH_URI);
    await expect(outsider.readResource(GATEWAY_HEALTH_URI)).rejects.toThrow(/not found/i);
    const operator = await connected(server, { id: 'olga', scopes: ['ops'], claims: {}, method: 'transport' });
    expect((await readHealth(operator)).map((u) => u.name)).toEqual(['calc']);
    // A second mount without scopes does not open it up: every holder's scopes count.
    const open = mount(server, 'open', { server: upstreamServer() });
    closers.push(() => open.close());
    expect(await listedUris(outsider)).not.toContain(GATEWAY_HEALTH_URI);
    // Once the restricted mount is gone, the resource carries the remaining mount's (none).
    await calc.close();
    expect(await listedUris(outsider)).toContain(GATEWAY_HEALTH_URI);
  });

  it('a resource of the server’s own at that URI is left alone, and the mount still works', async () => {
    const { server } = gatewayServer();
    server.resources.add({ uri: GATEWAY_HEALTH_URI, name: 'mine', read: () => 'my own' });
    const calc = mount(server, 'calc', { server: upstreamServer() });
    closers.push(() => calc.close());
    await calc.ready;
    const client = await connected(server);
    expect((await client.readResource(GATEWAY_HEALTH_URI)).contents[0]).toMatchObject({ text: 'my own' });
    expect((await client.callTool('calc_add', {})).content).toEqual([{ type: 'text', text: '3' }]);
    await calc.close();
    expect((await client.readResource(GATEWAY_HEALTH_URI)).contents[0]).toMatchObject({ text: 'my own' });
  });

  it('Gateway.serveHealth() and serveUpstreamHealth beside the mounts: one resource, each upstream once', async () => {
    const { server } = gatewayServer();
    const gateway = new Gateway(server);
    closers.push(() => gateway.close());
    gateway.add('one', { server: upstreamServer() });
    gateway.add('two', { server: upstreamServer() });
    gateway.serveHealth();
    const extra = serveUpstreamHealth(server, () => gateway.health());
    await gateway.started(5_000);
    const client = await connected(server);
    expect((await client.listResources()).filter((r) => r.uri === GATEWAY_HEALTH_URI)).toHaveLength(1);
    expect((await readHealth(client)).map((u) => u.name)).toEqual(['one', 'two']);
    extra();
    await gateway.close();
    expect(await listedUris(client)).not.toContain(GATEWAY_HEALTH_URI);
  });
});

describe('toolwright doctor against a program that mounts', () => {
  it('shows its upstreams with no serveUpstreamHealth call', async () => {
    const { server } = gatewayServer();
    const calc = mount(server, 'calc', { server: upstreamServer() });
    closers.push(() => calc.close());
    await calc.ready;
    const http = await serveHttp(server, { port: 0 });
    closers.push(() => http.close());
    const { code, stdout } = await runCliCaptured('doctor', http.url);
    expect(code).toBe(ExitCode.ok);
    expect(stdout).toMatch(/upstreams: 1 upstream/);
    expect(stdout).toMatch(/calc: connected \(server\), 1 tool\b/);
  }, 30_000);
});
