/**
 * One battery for the MCP handler mounted in someone else's HTTP app
 * (node:http, Express, Fastify, Hono, a fetch bridge): both eras through the
 * official SDK clients, SSE progress, and the per-request protections
 * (Origin, body limit, authorization, rate limits, the auth-failure
 * throttle) enforced where it is mounted, beside the app's own routes.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from '../../src/index.js';
import { generateApiKey } from '../../src/policy/auth/api-keys.js';
import { ToolServer } from '../../src/server/server.js';
import { interopTools } from '../fixtures/interop-tools.js';
import { memoryLogger, MODERN, modernMeta } from './wire.js';

/** The app's own answer on GET /health, which every mounting serves beside MCP. */
export const HEALTH_TEXT = 'app is healthy';
export const ALLOWED_ORIGIN = 'http://app.example';
export const MAX_BODY_BYTES = 64 * 1024;

export interface MountedApp {
  /** The app's base URL, e.g. http://127.0.0.1:5123 (no trailing slash). */
  base: string;
  close(): Promise<void>;
}

/**
 * The server and handler every mounting serves: API keys, one tool limited
 * to one call a minute, a small body limit, one allowed Origin.
 */
export async function mountedFixture(extra: HttpHandlerOptions = {}) {
  const { key, hash } = generateApiKey();
  const toolServer = new ToolServer({
    name: 'mounted',
    version: '1.0.0',
    logger: memoryLogger().logger,
    audit: false,
    tools: [...interopTools, { name: 'limited', description: 'Once a minute', inputSchema: { type: 'object' }, handler: () => 'ran' }],
    limits: { rateLimit: { tools: { limited: { points: 1, durationSeconds: 60 } } } },
  });
  const handler = createHttpHandler(toolServer, {
    auth: { apiKeys: [{ hash, principal: 'app-user' }] },
    maxBodyBytes: MAX_BODY_BYTES,
    allowedOrigins: [ALLOWED_ORIGIN],
    authFailureLimit: { points: 3, durationSeconds: 60 },
    ...extra,
  });
  return { key, toolServer, handler };
}

/** Defines the battery for one way of mounting; `mount` starts the app (on 127.0.0.1, a free port) around the handler. */
export function describeMounted(
  name: string,
  mount: (handler: HttpHandler) => Promise<MountedApp>,
  options: { skip?: string | false; mcpPath?: string; extra?: HttpHandlerOptions } = {},
): void {
  describe.skipIf(!!options.skip)(name, () => {
    const mcpPath = options.mcpPath ?? '/mcp';
    let app: MountedApp;
    let fixture: Awaited<ReturnType<typeof mountedFixture>>;
    let url: string;
    let nextId = 1;
    beforeAll(async () => {
      fixture = await mountedFixture({ path: mcpPath, ...options.extra });
      app = await mount(fixture.handler);
      url = `${app.base}${mcpPath}`;
    });
    afterAll(async () => {
      await fixture?.handler.close();
      await app?.close();
    });
    const bearer = () => ({ authorization: `Bearer ${fixture.key}` });
    const modernPost = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': method,
          ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: modernMeta() } }),
      });

    it("serves the app's own routes beside MCP, and leaves unknown paths to the app", async () => {
      const health = await fetch(`${app.base}/health`);
      expect(health.status).toBe(200);
      expect(await health.text()).toBe(HEALTH_TEXT);
      expect((await fetch(`${app.base}/nowhere`)).status).toBe(404);
    });

    it('serves the modern era to the official 2.x client: list, call, progress over SSE', async () => {
      const client = new ClientV2({ name: 'mounted-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
      await client.connect(new HttpV2(new URL(url), { requestInit: { headers: bearer() } }), { timeout: 10_000 });
      try {
        expect(client.getProtocolEra()).toBe('modern');
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('calculate_sum');
        expect((await client.callTool({ name: 'calculate_sum', arguments: { a: 2, b: 3 } })).content).toEqual([{ type: 'text', text: '5' }]);
        const seen: number[] = [];
        const counted = await client.callTool(
          { name: 'slow_count', arguments: { n: 3 } },
          { onprogress: (p: { progress: number }) => seen.push(p.progress), timeout: 10_000 },
        );
        expect((counted.content as Array<{ text: string }>)[0].text).toBe('counted 3');
        expect(seen).toEqual([1, 2, 3]);
      } finally {
        await client.close();
      }
    });

    it('serves the legacy era to the official 1.x client: a session, its GET stream, progress, DELETE', async () => {
      const client = new ClientV1({ name: 'mounted-v1', version: '1.0.0' });
      const transport = new HttpV1(new URL(url), { requestInit: { headers: bearer() } });
      await client.connect(transport);
      try {
        expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect((await client.callTool({ name: 'calculate_sum', arguments: { a: 4, b: 5 } })).content).toEqual([{ type: 'text', text: '9' }]);
        const seen: number[] = [];
        const counted = await client.callTool({ name: 'slow_count', arguments: { n: 2 } }, undefined, {
          onprogress: (p: { progress: number }) => seen.push(p.progress),
          timeout: 10_000,
        });
        expect((counted.content as Array<{ text: string }>)[0].text).toBe('counted 2');
        expect(seen).toEqual([1, 2]);
        const sessionId = transport.sessionId!;
        await transport.terminateSession();
        // The session is gone: naming it again is a 404.
        const after = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
            ...bearer(),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' }),
        });
        expect(after.status).toBe(404);
      } finally {
        await client.close();
      }
    });

    it("delivers list changes on a subscriptions/listen stream and on a legacy session's GET stream", async () => {
      const listen = await modernPost('subscriptions/listen', { notifications: { toolsListChanged: true } }, bearer());
      expect(listen.headers.get('content-type')).toBe('text/event-stream');
      const modernEvents = sseEvents(listen);
      expect((await modernEvents.next()).method).toBe('notifications/subscriptions/acknowledged');
      fixture.toolServer.tools.add({ name: 'added', description: 'Added while listening', inputSchema: { type: 'object' }, handler: () => 'added' });
      expect((await modernEvents.next()).method).toBe('notifications/tools/list_changed');
      await modernEvents.cancel();

      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer() };
      const init = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: nextId++,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      const stream = await fetch(url, { headers: { ...headers, accept: 'text/event-stream', ...session } });
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      const legacyEvents = sseEvents(stream);
      fixture.toolServer.tools.disable('added');
      expect(await legacyEvents.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      await legacyEvents.cancel();
      expect((await fetch(url, { method: 'DELETE', headers: { ...bearer(), ...session } })).status).toBe(200);
    });

    it('refuses an Origin it does not allow with 403, and serves the one it does', async () => {
      const refused = await modernPost('tools/list', {}, { ...bearer(), origin: 'http://evil.example' });
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.message).toBe('Forbidden: Origin is not allowed');
      expect((await modernPost('tools/list', {}, { ...bearer(), origin: ALLOWED_ORIGIN })).status).toBe(200);
    });

    it('refuses a body over its limit with 413', async () => {
      const res = await modernPost('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(MAX_BODY_BYTES) } }, bearer());
      expect(res.status).toBe(413);
      expect((await res.json()).error.message).toBe(`Payload Too Large: the body exceeds ${MAX_BODY_BYTES} bytes`);
    });

    it("applies the tool server's rate limits to calls through the mount", async () => {
      const first = await (await modernPost('tools/call', { name: 'limited', arguments: {} }, bearer())).json();
      expect(first.result.content[0].text).toBe('ran');
      const second = await modernPost('tools/call', { name: 'limited', arguments: {} }, bearer());
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = await second.json();
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0].text).toMatch(/^Rate limit exceeded for tool limited/);
    });

    // Last: it blocks the test client's address.
    it('answers 401 without a valid key, and throttles repeated failures with 429', async () => {
      const none = await modernPost('tools/list', {});
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await modernPost('tools/list', {}, { authorization: `Bearer twk_wrong_${i}_aaaaaaaaaaaaaaaaaaaaaaaa` })).status);
      expect(statuses).toEqual([401, 401, 429]);
      // Blocked before credentials are looked at: the right key waits too.
      expect((await modernPost('tools/list', {}, bearer())).status).toBe(429);
    });
  });
}

/** Reads an SSE response one JSON message at a time. */
function sseEvents(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const queued: Array<Record<string, any>> = [];
  return {
    async next(): Promise<Record<string, any>> {
      while (!queued.length) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffered += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const data = buffered
            .slice(0, end)
            .split('\n')
            .filter((line) => line.startsWith('data: '));
          buffered = buffered.slice(end + 2);
          if (data.length) queued.push(JSON.parse(data.map((line) => line.slice(6)).join('\n')));
        }
      }
      return queued.shift()!;
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

/** The reason a framework's tests are skipped, loudly, when its package is not installed; false when it is. */
export async function missingPackages(...names: string[]): Promise<string | false> {
  const missing: string[] = [];
  for (const name of names) {
    try {
      await import(name);
    } catch {
      missing.push(name);
    }
  }
  if (!missing.length) return false;
  const reason = `SKIPPED: ${missing.join(', ')} not installed (devDependencies needed to run these mounting tests)`;
  console.warn(reason);
  return reason;
}
