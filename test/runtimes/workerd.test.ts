import { spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/until.js';
import {
  CLIENT_CORE_FIXTURES,
  CLIENT_CORE_OUTCOME,
  exampleProject,
  expectClientCoreServes,
  expectSdkClientServes,
  ROOT,
  runtimeBinary,
  serveExampleToolsOnNode,
} from './harness.js';

// Cloudflare's workerd (the npm package `workerd`, installed by test/runtimes/install.mjs): the
// Worker of docs/runtimes/workers.md, bundled as wrangler would (esbuild, the worker/browser
// conditions, node: built-ins left to nodejs_compat), served on 127.0.0.1 by workerd itself.
const workerd = runtimeBinary('workerd');

/** workerd's config: the Worker on one socket, with outbound fetch to loopback allowed (the client core calls a Node-served server). */
const config = (port: number) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "bundle.mjs") ],
  compatibilityDate = "2026-01-01",
  compatibilityFlags = ["nodejs_compat"],
  globalOutbound = "internet",
);
`;

describe.skipIf(!workerd)('toolwright in a Cloudflare Worker (workerd)', () => {
  let project: ReturnType<typeof exampleProject>;
  let base: string;
  let stop: () => void = () => {};
  let output = '';
  beforeAll(async () => {
    project = exampleProject([`${ROOT}/examples/runtimes/worker.ts`, `${ROOT}/test/runtimes/fixtures/worker-under-test.mjs`, ...CLIENT_CORE_FIXTURES]);
    await build({
      entryPoints: [join(project.dir, 'worker-under-test.mjs')],
      outfile: join(project.dir, 'bundle.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      external: ['node:*', ...builtinModules],
      // A bundled Worker has no module URL of its own; toolwright's files ask for theirs.
      define: { 'import.meta.url': '"file:///worker/worker.mjs"' },
      logLevel: 'error',
    });
    const port = await freePort();
    writeFileSync(join(project.dir, 'config.capnp'), config(port));
    const child = spawn(workerd!, ['serve', 'config.capnp', '--verbose'], { cwd: project.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    stop = () => child.kill('SIGKILL');
    base = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${base}/mcp`, { method: 'GET' }).catch(() => undefined))?.status === 405, 'workerd serving', 20_000);
  }, 60_000);
  afterAll(() => {
    stop();
    project?.remove();
  });

  it('serves the stateless era to the official SDK client: list, call, progress over SSE', async () => {
    await expectSdkClientServes(`${base}/mcp`, '2026-07-28');
  });

  it("answers toolwright's client core from Node: list, call, progress", async () => {
    await expectClientCoreServes(`${base}/mcp`, project.dir);
  });

  it('answers bad arguments in the Worker with the same isError result as on Node (the interpreting validator)', async () => {
    const client = new Client({ name: 'runtime-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)), { timeout: 10_000 });
    try {
      const bad = await client.callTool({ name: 'count', arguments: { n: 11, extra: true } });
      expect(bad.isError, output).toBe(true);
      expect(bad.content).toEqual([{ type: 'text', text: expect.stringContaining('arguments.n: must be <= 10') }]);
      const missing = await client.callTool({ name: 'calculate_sum', arguments: { a: 'one' } });
      expect(missing.isError).toBe(true);
      const text = (missing.content as Array<{ text: string }>)[0].text;
      expect(text).toContain('arguments.a: expected number');
      expect(text).toContain('arguments.b: required field is missing');
    } finally {
      await client.close();
    }
  });

  it('answers a failing tool with a correlation id, and logs the details through console (no pino in a Worker)', async () => {
    const client = new Client({ name: 'runtime-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/broken/mcp`)), { timeout: 10_000 });
    try {
      const failed = await client.callTool({ name: 'explode', arguments: {} });
      expect(failed.isError, output).toBe(true);
      const text = (failed.content as Array<{ text: string }>)[0].text;
      const id = /correlation id ([0-9a-f-]{36})/.exec(text)?.[1];
      expect(id, text).toBeDefined();
      expect(text).not.toContain('kaboom');
      expect(text).not.toContain('/srv/secret');
      // The log line (console.error, which workerd prints) carries what the client is not told.
      await until(() => output.includes(id!), 'the failure logged by the Worker', 5_000);
      const line = output.split('\n').find((l) => l.includes(id!))!;
      expect(line).toContain('tool call failed');
      expect(line).toContain('kaboom');
    } finally {
      await client.close();
    }
  });

  it('tells a legacy client that only the stateless era is served: no session can live in a Worker', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const { error } = await res.json();
    expect(error.code).toBe(-32022);
    expect(error.data.supported).toEqual(['2026-07-28']);
  });

  it('runs the client core inside the Worker against a Node-served toolwright server', async () => {
    const node = await serveExampleToolsOnNode();
    try {
      const res = await fetch(`${base}/client-core?target=${encodeURIComponent(node.url)}`);
      expect(res.status, output).toBe(200);
      expect(await res.json()).toEqual(CLIENT_CORE_OUTCOME);
    } finally {
      await node.close();
    }
  });
});
