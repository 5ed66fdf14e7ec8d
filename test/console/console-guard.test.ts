import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../src/console/server/listen.js';

/**
 * Issue 25, the CVE-2025-49596 class: the console's API answers only its own page. Requests
 * are made with node:http so every header (Host, Origin, Sec-Fetch-Site) is the attacker's
 * choice, as a non-browser client or a DNS-rebinding page would send them.
 */
let running: RunningConsole;
let token: string;

beforeAll(async () => {
  running = await startConsole({ version: '0.0.0-test' });
  token = /token=([A-Za-z0-9_-]+)/.exec(running.url)?.[1] ?? '';
});
afterAll(() => running.close());

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: running.port, method, path, headers, setHost: !('Host' in headers) }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const own = () => ({ Host: `127.0.0.1:${running.port}`, Origin: `http://127.0.0.1:${running.port}` });
const json = { 'Content-Type': 'application/json' };
const connectBody = JSON.stringify({ command: process.execPath, args: ['-e', 'process.exit(0)'] });

describe('the console API', () => {
  it('answers its own page: right Host, Origin and token', async () => {
    const res = await send('GET', '/api/status', { ...own(), 'X-Console-Token': token });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ connected: false });
  });

  it.each([
    ['no token', () => ({ ...own() })],
    ['a wrong token', () => ({ ...own(), 'X-Console-Token': `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}` })],
    ['the token in the query string instead of the header', () => ({ ...own() }), () => `?token=${token}`],
    ['another Origin', () => ({ ...own(), Origin: 'http://evil.example', 'X-Console-Token': token })],
    ['a rebound Host (DNS rebinding)', () => ({ Host: `evil.example:${running.port}`, 'X-Console-Token': token })],
    ['a cross-site fetch', () => ({ ...own(), 'Sec-Fetch-Site': 'cross-site', 'X-Console-Token': token })],
  ])('refuses %s with 403 and does nothing', async (_what, headers, query = () => '') => {
    const res = await send('POST', `/api/connect${query()}`, { ...headers(), ...json }, connectBody);
    expect(res.status).toBe(403);
    expect(running.app.session.client).toBeUndefined();
  });

  it('refuses a rebound Host and a cross-site request even with the right token', async () => {
    const rebound = await send('POST', '/api/connect', { Host: `attacker.example:${running.port}`, 'X-Console-Token': token, ...json }, connectBody);
    expect(rebound.status).toBe(403);
    const crossSite = await send('POST', '/api/connect', { ...own(), 'Sec-Fetch-Site': 'same-site', 'X-Console-Token': token, ...json }, connectBody);
    expect(crossSite.status).toBe(403);
    const noOrigin = await send('POST', '/api/connect', { Host: `127.0.0.1:${running.port}`, 'X-Console-Token': token, ...json }, connectBody);
    expect(noOrigin.status).toBe(403);
    expect(running.app.session.client).toBeUndefined();
  });

  it('sends no CORS header, not even to a preflight', async () => {
    const preflight = await send('OPTIONS', '/api/connect', {
      ...own(),
      Origin: 'http://evil.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'x-console-token,content-type',
    });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    for (const res of [preflight, await send('GET', '/api/status', { ...own(), 'X-Console-Token': token })]) {
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('takes only JSON objects, within a size limit', async () => {
    const headers = { ...own(), 'X-Console-Token': token };
    expect((await send('POST', '/api/connect', { ...headers, 'Content-Type': 'text/plain' }, connectBody)).status).toBe(415);
    expect((await send('POST', '/api/connect', { ...headers, ...json }, '[1]')).status).toBe(400);
    expect((await send('POST', '/api/connect', { ...headers, ...json }, '{"url":')).status).toBe(400);
    expect((await send('POST', '/api/call', { ...headers, ...json }, `{"tool":"${'x'.repeat(5 * 1024 * 1024)}"}`)).status).toBe(413);
  });

  it('serves its page with a strict Content-Security-Policy and refuses to be framed', async () => {
    const res = await send('GET', '/', { Host: `127.0.0.1:${running.port}` });
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).not.toContain(token);
    expect((await send('GET', '/', { Host: 'evil.example' })).status).toBe(403);
  });
});
