/**
 * A running gateway's upstream health: served as the resource `toolwright://gateway/upstreams`,
 * shown by `toolwright doctor <gateway>` one line per upstream (connected with its counts, or
 * unreachable with its last error and when it is retried), never with a secret or an absolute path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/errors.js';
import { GATEWAY_HEALTH_URI, parseUpstreamHealth } from '../../src/client/doctor/upstreams.js';
import { Gateway } from '../../src/gateway/index.js';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { runCliCaptured } from '../helpers/cli.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

function healthyUpstream() {
  const server = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  server.addTool(defineTool({ name: 'add', description: 'adds', inputSchema: { type: 'object' }, handler: () => '3' }));
  server.addTool(defineTool({ name: 'sub', description: 'subtracts', inputSchema: { type: 'object' }, handler: () => '1' }));
  server.prompts.add(definePrompt({ name: 'greet', get: () => 'hi' }));
  return server;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error('not reached in 10 s');
}

/** A stdio upstream that dies at once, saying where it lives and carrying a secret in its URL-ish message. */
const DEAD = { command: process.execPath, args: ['-e', 'process.exit(3)'], env: { SECRET_TOKEN: 'sk-live-123' } };

let http: HttpServerHandle;
const { server } = gatewayServer();
const gateway = new Gateway(server);

beforeAll(async () => {
  gateway.add('calc', { server: healthyUpstream() });
  gateway.add('broken', DEAD);
  gateway.serveHealth();
  await gateway.started(5_000);
  // The dead one has failed at least once; the healthy one's prompts are in (listed after its tools).
  await until(() => gateway.health().find((h) => h.name === 'broken')!.restarts > 0 && server.prompts.has('calc_greet'));
  http = await serveHttp(server, { port: 0 });
});
afterAll(async () => {
  await http?.close();
  await gateway.close();
});

describe('the health resource', () => {
  it('gives each upstream its state, counts, last error and retry', async () => {
    const pair = await createInMemoryPair(server);
    try {
      const read = await pair.client.readResource(GATEWAY_HEALTH_URI);
      const upstreams = parseUpstreamHealth(String((read.contents[0] as { text: string }).text))!;
      expect(upstreams.find((u) => u.name === 'calc')).toEqual({ name: 'calc', kind: 'server', state: 'up', tools: 2, prompts: 1, resources: 0, restarts: 0 });
      const broken = upstreams.find((u) => u.name === 'broken')!;
      expect(broken).toMatchObject({ kind: 'stdio', tools: 0 });
      expect(['down', 'connecting']).toContain(broken.state);
      expect(broken.restarts).toBeGreaterThan(0);
      const text = JSON.stringify(upstreams);
      expect(text).not.toContain('sk-live-123');
      expect(text).not.toContain(process.execPath);
    } finally {
      await pair.close();
    }
  });

  it('goes away with the gateway', async () => {
    const { server: other } = gatewayServer();
    const g = new Gateway(other);
    g.serveHealth();
    expect(other.resources.get(GATEWAY_HEALTH_URI)).toBeDefined();
    await g.close();
    expect(other.resources.get(GATEWAY_HEALTH_URI)).toBeUndefined();
  });
});

describe('toolwright doctor against a running gateway', () => {
  it('shows a healthy upstream connected with its counts, and a dead one unreachable with why and when it is retried', async () => {
    // Caught while down (not in the instant of a retry): the wait doubles, so poll until it is.
    await expect.poll(() => gateway.health().find((h) => h.name === 'broken')?.state, { timeout: 10_000 }).toBe('down');
    const { code, stdout } = await runCliCaptured('doctor', http.url);
    expect(code).toBe(ExitCode.ok);
    expect(stdout).toMatch(/! upstreams: 2 upstreams, 1 not connected/);
    expect(stdout).toMatch(/calc: connected \(server\), 2 tools, 1 prompt\n/);
    expect(stdout).toMatch(/broken: (unreachable|connecting) \(stdio\)/);
    expect(stdout).toMatch(/exited with code 3/);
    expect(stdout).not.toContain('sk-live-123');
    expect(stdout).toContain('the connection works');
  });

  it('--json carries the step with each upstream', async () => {
    const { stdout } = await runCliCaptured('doctor', http.url, '--json');
    const report = JSON.parse(stdout) as { steps: Array<{ id: string; status: string; detail?: string }> };
    const step = report.steps.find((s) => s.id === 'upstreams')!;
    expect(step.status).toBe('warning');
    expect(step.detail).toContain('calc: connected');
  });

  it('a server that is not a gateway has no upstreams step', async () => {
    const plain = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
    plain.addTool(defineTool({ name: 'x', description: 'x', inputSchema: { type: 'object' }, handler: () => 'x' }));
    const h = await serveHttp(plain, { port: 0 });
    try {
      const { code, stdout } = await runCliCaptured('doctor', h.url);
      expect(code).toBe(ExitCode.ok);
      expect(stdout).not.toContain('upstreams');
    } finally {
      await h.close();
    }
  });
});
