import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTools } from '../../../src/toolsets/http/index.js';
import { bodyKind } from '../../../src/toolsets/http/response-content.js';
import { modernMeta } from '../../helpers/wire.js';
import { contentServer, httpServer, PNG, type Listening } from './helpers.js';
import { until } from '../../helpers/until.js';

/**
 * The happy paths, against a real HTTP server on 127.0.0.1. Only these
 * tests turn on `allowPrivateNetworks`, the switch that lets a fetch reach
 * loopback at all (ssrf.test.ts shows it is off by default).
 */
let site: Listening;
let other: Listening;
let base: string;

beforeAll(async () => {
  site = await contentServer();
  other = await contentServer();
  base = `http://127.0.0.1:${site.port}`;
});
afterAll(async () => {
  await site.close();
  await other.close();
});

// The test servers listen on ephemeral ports, which the port policy (default 80 and 443) must be told about.
const local = (extra: Parameters<typeof httpServer>[0] = {}, serverOptions: Parameters<typeof httpServer>[1] = {}) =>
  httpServer({ allowPrivateNetworks: true, allowedPorts: [site.port, other.port], ...extra }, serverOptions);

describe('fetch_url: bodies by type', () => {
  it('returns text as text, with status and headers as structured content', async () => {
    const result = await local().call({ url: `${base}/text` });
    expect(result.isError).toBeUndefined();
    expect(result.content).toHaveLength(1);
    expect(result.content[0].text).toMatch(
      /^HTTP 200 OK — GET http:\/\/127\.0\.0\.1:\d+\/text\ncontent-type: text\/plain; charset=utf-8; 14 bytes\n\nhello text ✓$/,
    );
    expect(result.structuredContent).toMatchObject({
      status: 200,
      finalUrl: `${base}/text`,
      contentType: 'text/plain; charset=utf-8',
      bytes: 14,
      truncated: false,
      redirects: [],
    });
    expect(result.structuredContent.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('returns JSON, SVG and untyped UTF-8 as text, decoding the declared charset', async () => {
    const { call } = local();
    expect((await call({ url: `${base}/json` })).content[0].text).toContain('{"ok":true,"items":[1,2]}');
    expect((await call({ url: `${base}/svg` })).content[0].text).toContain('<svg xmlns=');
    expect((await call({ url: `${base}/untyped` })).content[0].text).toContain('plain words without a type');
    expect((await call({ url: `${base}/latin1` })).content[0].text).toContain('<p>café</p>');
  });

  it('returns an image as an image block', async () => {
    const result = await local().call({ url: `${base}/image` });
    expect(result.content[1]).toEqual({ type: 'image', mimeType: 'image/png', data: PNG.toString('base64') });
  });

  it('attaches other binary bodies as an embedded resource', async () => {
    const result = await local().call({ url: `${base}/binary` });
    expect(result.content[1]).toEqual({
      type: 'resource',
      resource: { uri: `${base}/binary`, mimeType: 'application/octet-stream', blob: Buffer.from([0, 1, 2, 3, 255]).toString('base64') },
    });
  });

  it('decodes gzip although it asked for identity', async () => {
    const result = await local().call({ url: `${base}/gzip` });
    expect(result.content[0].text).toContain('compressed hello');
  });

  it('reports a body that does not decompress as an isError result', async () => {
    const result = await local().call({ url: `${base}/badgzip` });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('sent a compressed body that does not decompress (Z_DATA_ERROR)');
  });

  it('reports 4xx and 5xx as isError results with the body', async () => {
    const result = await local().call({ url: `${base}/status?code=404` });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('HTTP 404 Not Found');
    expect(result.content[0].text).toContain('status body 404');
    expect(result.structuredContent.status).toBe(404);
  });

  it('answers HEAD without reading a body', async () => {
    const result = await local().call({ url: `${base}/text`, method: 'HEAD' });
    expect(result.structuredContent).toMatchObject({ status: 200, bytes: 0 });
    expect(result.content[0].text).toContain('(empty body)');
  });
});

describe('fetch_url: an untyped body', () => {
  // Judged by isText (src/toolsets/text-bytes.ts), shared with the fs toolset.
  const untyped = (body: Buffer) => bodyKind({ essence: '' }, body);

  it('is text when it is UTF-8, even when cut at the size cap inside a character', () => {
    expect(untyped(Buffer.from('plain words ✓'))).toBe('text');
    expect(untyped(Buffer.from('cut inside ✓').subarray(0, -1))).toBe('text');
  });

  it('is binary when it holds a NUL or bytes that are not UTF-8 (a character cut at its end aside)', () => {
    expect(untyped(Buffer.from('a\0b'))).toBe('binary');
    expect(untyped(Buffer.from('caf\xe9 au lait, sent without a type', 'latin1'))).toBe('binary');
    // Large and invalid near the start: decided at once, not by re-decoding ever shorter prefixes.
    const large = Buffer.alloc(2 * 1024 * 1024, 'a');
    large[1] = 0xff;
    expect(untyped(large)).toBe('binary');
  });
});

describe('fetch_url: limits', () => {
  it('stops reading at the size cap and says so', async () => {
    const result = await local({ maxResponseBytes: 100_000 }).call({ url: `${base}/huge` });
    expect(result.structuredContent).toMatchObject({ truncated: true, bytes: 100_000 });
    expect(result.content[0].text).toContain('[truncated: the body is larger than 100000 bytes; only the first 100000 bytes are shown]');
  });

  it("sends a body over the server's result limit as a preview and a resource_link", async () => {
    const result = await local({ maxResponseBytes: 200_000 }, { maxResultBytes: 50_000 }).call({ url: `${base}/huge` });
    expect(result.content.map((b: { type: string }) => b.type)).toEqual(['text', 'resource_link']);
    expect(result.content[1]).toMatchObject({ mimeType: 'text/plain' });
    expect(result.structuredContent).toMatchObject({ truncated: true, bytes: 200_000 });
  });

  it('caps the decoded size of a compressed body (a gzip bomb costs no more than the cap)', async () => {
    const result = await local({ maxResponseBytes: 50_000 }).call({ url: `${base}/bomb` });
    expect(result.structuredContent).toMatchObject({ truncated: true, bytes: 50_000 });
  });

  it('never sends half an image', async () => {
    const result = await local({ maxResponseBytes: 10 }).call({ url: `${base}/image` });
    expect(result.content).toHaveLength(1);
    expect(result.content[0].text).toContain('image body of type image/png not shown: the body is larger than 10 bytes');
  });

  it('stops a fetch that outlives its time cap, with an isError result', async () => {
    const result = await local({ timeoutMs: 300 }).call({ url: `${base}/slow` });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('took longer than 0.3 s and was stopped');
  });

  it('on cancel: the connection is closed and nothing is answered', async () => {
    const w = local();
    const before = site.connections;
    const answer = w.request('tools/call', { name: 'fetch_url', arguments: { url: `${base}/slow` }, _meta: modernMeta() }, 'slow');
    const openSockets = () => new Promise<number>((resolve) => site.server.getConnections((_e, n) => resolve(n)));
    await until(() => site.connections > before, 'the fetch to connect');
    expect(site.connections).toBe(before + 1);
    expect(await openSockets()).toBeGreaterThan(0);
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } });
    await until(async () => (await openSockets()) === 0, 'the connection to close');
    expect(await openSockets()).toBe(0);
    let answered = false;
    void answer.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
  });
});

describe('fetch_url: redirects', () => {
  it('follows redirects and lists them', async () => {
    const to = encodeURIComponent(`${base}/redirect?to=${encodeURIComponent('/json')}&status=301`);
    const result = await local().call({ url: `${base}/redirect?to=${to}` });
    expect(result.structuredContent.finalUrl).toBe(`${base}/json`);
    expect(result.structuredContent.redirects).toHaveLength(2);
    expect(result.content[0].text).toContain('(after 2 redirects from');
  });

  it('stops a redirect loop after maxRedirects', async () => {
    const result = await local({ maxRedirects: 3 }).call({ url: `${base}/loop` });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('Stopped after 3 redirects');
  });

  it('turns POST into a bodiless GET on 303, and keeps method and body on 307', async () => {
    const { call } = local({ methods: ['GET', 'POST'] });
    const see = await call({ url: `${base}/redirect?status=303&to=/echo`, method: 'POST', body: 'data', headers: { 'content-type': 'text/plain' } });
    const seen = JSON.parse(see.content[0].text.split('\n\n')[1]);
    expect(seen).toMatchObject({ method: 'GET', body: '' });
    expect(seen.headers['content-type']).toBeUndefined();
    const keep = await call({ url: `${base}/redirect?status=307&to=/echo`, method: 'POST', body: 'data' });
    expect(JSON.parse(keep.content[0].text.split('\n\n')[1])).toMatchObject({ method: 'POST', body: 'data' });
  });

  it('drops credentials when a redirect leaves the origin, keeps them within it', async () => {
    const { call } = local();
    const headers = { authorization: 'Bearer secret', cookie: 'a=b', 'x-keep': 'yes' };
    const same = await call({ url: `${base}/redirect?to=/echo`, headers });
    expect(JSON.parse(same.content[0].text.split('\n\n')[1]).headers).toMatchObject({ authorization: 'Bearer secret', cookie: 'a=b' });
    const away = await call({ url: `${base}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${other.port}/echo`)}`, headers });
    const seen = JSON.parse(away.content[0].text.split('\n\n')[1]).headers;
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    // Only a safe-list of credential-free headers crosses origins: a custom header may hold a secret too.
    expect(seen['x-keep']).toBeUndefined();
  });
});

describe('fetch_url: request headers, methods and bodies', () => {
  it('drops hop-by-hop headers, sets its own User-Agent, and sends Host for the URL', async () => {
    const result = await local().call({
      url: `${base}/echo`,
      headers: { Upgrade: 'h2c', TE: 'trailers', 'Proxy-Authorization': 'Basic x', 'Keep-Alive': '5', 'Accept-Encoding': 'br', 'X-Custom': 'kept' },
    });
    const seen = JSON.parse(result.content[0].text.split('\n\n')[1]);
    expect(seen.headers).toMatchObject({
      host: `127.0.0.1:${site.port}`,
      'x-custom': 'kept',
      'user-agent': 'toolwright-fetch/0.1',
      'accept-encoding': 'identity',
    });
    for (const gone of ['upgrade', 'te', 'proxy-authorization', 'keep-alive']) expect(seen.headers[gone]).toBeUndefined();
  });

  it('refuses a Host override, header injection, and too many header bytes', async () => {
    const { call } = local({ maxHeaderBytes: 100 });
    expect((await call({ url: `${base}/echo`, headers: { Host: 'internal.example' } })).content[0].text).toContain('The Host header cannot be set');
    expect((await call({ url: `${base}/echo`, headers: { 'X-A': 'a\r\nX-Injected: 1' } })).content[0].text).toContain('cannot contain line breaks');
    expect((await call({ url: `${base}/echo`, headers: { 'Bad Name': 'x' } })).content[0].text).toContain('is not valid');
    expect((await call({ url: `${base}/echo`, headers: { 'X-Big': 'y'.repeat(60), 'X-Bigger': 'z'.repeat(60) } })).content[0].text).toContain(
      'exceed 100 bytes',
    );
  });

  it('refuses too many headers through the schema', async () => {
    const headers = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-h${i}`, 'v']));
    const result = await local().call({ url: `${base}/echo`, headers });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('arguments.headers');
  });

  it('refuses methods that are not allowed, and bodies on GET', async () => {
    const { call } = local();
    const post = await call({ url: `${base}/echo`, method: 'POST', body: 'x' });
    expect(post.isError).toBe(true);
    expect(post.content[0].text).toContain('"GET", "HEAD"');
    const body = await local({ methods: ['GET', 'POST'] }).call({ url: `${base}/echo`, body: 'x' });
    expect(body.content[0].text).toContain('A GET request cannot have a body');
  });

  it('is read-only with safe methods, destructive once a method can change data', () => {
    expect(httpTools()[0].annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    const writes = httpTools({ methods: ['GET', 'POST', 'DELETE'] })[0];
    expect(writes.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(writes.description).toContain("POST, DELETE requests can change data on the remote server, so every call waits for the user's approval");
  });

  it('names the option in whole messages for unusable settings, as every toolset does', () => {
    const fails = (options: Parameters<typeof httpTools>[0], message: string) => expect(() => httpTools(options)).toThrow(new TypeError(message));
    fails({ methods: [] }, 'http toolset: "methods" must list at least one method');
    fails({ timeoutMs: 0 }, 'http toolset: "timeoutMs" must be a positive integer');
    fails({ maxHeaderBytes: 2.5 }, 'http toolset: "maxHeaderBytes" must be a positive integer');
    fails({ maxRedirects: -1 }, 'http toolset: "maxRedirects" must be a non-negative integer');
  });
});
