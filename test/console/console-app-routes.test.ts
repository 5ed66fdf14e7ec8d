import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../src/console/server/listen.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { MemoryClientTransport } from '../../src/testing.js';
import appTools from '../fixtures/console/app-tools.js';

/**
 * Issue 25, MCP Apps in the console, at the HTTP level: an app's document is served from an
 * unguessable app-frame/<id> with the app's own CSP (sandboxed, no network), only for ui://
 * resources of the app MIME type; an app's tools/call is refused for tools it may not call.
 */
let running: RunningConsole;
let token: string;
let origin: string;

beforeAll(async () => {
  const server = new ToolServer({ name: 'apps', version: '1.0.0', audit: false, logger: createLogger('silent') });
  server.resources.add({ uri: 'note://plain', name: 'plain', mimeType: 'text/html', read: () => '<p>not an app</p>' });
  server.addTool(...appTools(server));
  running = await startConsole({ version: '0.0.0-test', target: { kind: 'transport', label: 'apps', transport: () => new MemoryClientTransport(server) } });
  token = /token=([A-Za-z0-9_-]+)/.exec(running.url)?.[1] ?? '';
  origin = new URL(running.url).origin;
  await running.app.session.connect(running.app.session.defaultTarget!);
});
afterAll(() => running.close());

const post = (path: string, body: unknown) =>
  fetch(`${origin}/api/${path}`, {
    method: 'POST',
    headers: { 'X-Console-Token': token, Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('app frames', () => {
  it('serve a ui:// app under an unguessable id with its own sandboxed CSP, framed by the console only', async () => {
    const res = await post('app-frame', { uri: 'ui://counter/view' });
    expect(res.status).toBe(200);
    const { src } = (await res.json()) as { src: string };
    expect(src).toMatch(/^app-frame\/[A-Za-z0-9_-]{24}$/);
    const frame = await fetch(`${origin}/${src}`);
    expect(frame.status).toBe(200);
    const csp = frame.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain('sandbox allow-scripts');
    expect(csp).not.toContain('allow-same-origin');
    expect(csp).toContain("frame-ancestors 'self'");
    expect(frame.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(await frame.text()).toContain('<script');
    // Guessing ids gets nothing.
    expect((await fetch(`${origin}/app-frame/${'A'.repeat(24)}`)).status).toBe(404);
  });

  it('refuse what is not an MCP App', async () => {
    expect((await post('app-frame', { uri: 'note://plain' })).status).toBe(400);
    const plain = await post('app-frame', { uri: 'ui://missing/view' });
    expect(plain.status).toBeGreaterThanOrEqual(400);
  });

  it("refuse an app's call to a tool whose visibility leaves out apps, and take one that includes them", async () => {
    const refused = await post('app-call', { name: 'secret_tool', arguments: {} });
    expect(refused.status).toBe(403);
    const bumped = await post('app-call', { name: 'bump_counter', arguments: { count: 1 } });
    expect(bumped.status).toBe(200);
    expect(await bumped.json()).toMatchObject({ structuredContent: { count: 2 } });
  });
});
