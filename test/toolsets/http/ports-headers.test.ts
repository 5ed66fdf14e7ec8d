import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTools } from '../../../src/toolsets/http/index.js';
import { contentServer, httpServer, publicNetwork, type Listening } from './helpers.js';

/**
 * Issue 18 items 4 and 5. Ports: a public host is reached on 80 and 443
 * only unless the operator lists more, on the first request and on every
 * redirect. Headers: whatever describes the connection (hop-by-hop, and
 * every name the caller lists in Connection) never goes upstream, and on a
 * redirect to another origin only headers known to carry no credentials go
 * along.
 */
const PUBLIC = '93.184.215.14';
const OTHER_PUBLIC = '93.184.215.15';

let site: Listening;
let elsewhere: Listening;

beforeAll(async () => {
  site = await contentServer();
  elsewhere = await contentServer();
});
afterAll(async () => {
  await site.close();
  await elsewhere.close();
});

/** public.test and other.test are "public" hosts whose every port leads to a loopback content server. */
function setup(extra: Parameters<typeof httpServer>[0] = {}) {
  const net = publicNetwork({ 'public.test': PUBLIC, 'other.test': OTHER_PUBLIC }, { [PUBLIC]: site.port, [OTHER_PUBLIC]: elsewhere.port });
  return httpServer({ lookup: net.lookup, dialOverride: net.dialOverride, methods: ['GET', 'POST'], ...extra });
}

const echoed = (result: { content: Array<{ text: string }> }) => JSON.parse(result.content[0].text.split('\n\n')[1]) as { headers: Record<string, string> };

describe('fetch_url: port policy', () => {
  it.each([22, 25, 6379, 11211, 8080])('refuses port %i of a public host by default, saying how to open it', async (port) => {
    const before = site.requests.length;
    const result = await setup().call({ url: `http://public.test:${port}/text` });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain(`port ${port} is not open to fetches on this server (allowed: 80, 443)`);
    expect(result.content[0].text).toContain('"allowedPorts"');
    expect(site.requests.length, 'nothing was sent').toBe(before);
  });

  it('fetches 80 and 443 (implicit or written out) by default', async () => {
    const { call } = setup();
    expect((await call({ url: 'http://public.test/text' })).isError).toBeUndefined();
    expect((await call({ url: 'http://public.test:80/text' })).isError).toBeUndefined();
  });

  it('fetches a port the operator listed, and no other', async () => {
    const { call } = setup({ allowedPorts: [8080] });
    const ok = await call({ url: 'http://public.test:8080/text' });
    expect(ok.isError).toBeUndefined();
    expect(ok.content[0].text).toContain('hello text');
    // The list replaces the default: 80 is only open when listed.
    expect((await call({ url: 'http://public.test/text' })).content[0].text).toContain('port 80 is not open to fetches on this server (allowed: 8080)');
  });

  it('re-checks the port on every redirect hop', async () => {
    const before = elsewhere.requests.length;
    const result = await setup().call({ url: `http://public.test/redirect?to=${encodeURIComponent('http://other.test:6379/echo')}` });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('port 6379 is not open to fetches on this server');
    expect(elsewhere.requests.length, 'the redirect target was never contacted').toBe(before);
  });

  it('refuses an unusable allowedPorts setting at start-up', () => {
    expect(() => httpTools({ allowedPorts: [0] })).toThrow(new TypeError('http toolset: "allowedPorts" must be a non-empty list of port numbers (1–65535)'));
    expect(() => httpTools({ allowedPorts: [] })).toThrow(TypeError);
    expect(() => httpTools({ allowedPorts: [70000] })).toThrow(TypeError);
    expect(() => httpTools({ allowedPorts: ['80' as unknown as number] })).toThrow(TypeError);
  });
});

describe('fetch_url: connection-specific and credential headers', () => {
  it('drops every header the caller names in Connection, and the hop-by-hop set', async () => {
    const result = await setup().call({
      url: 'http://public.test/echo',
      headers: {
        Connection: 'X-Secret, x-other ,close',
        'X-Secret': 'must not be forwarded',
        'X-Other': 'nor this',
        'Proxy-Foo': 'proxy-directed',
        'HTTP2-Settings': 'AAMAAABkAAQAAP__',
        'Keep-Alive': 'timeout=5',
        'X-Kept': 'yes',
      },
    });
    expect(result.isError).toBeUndefined();
    const seen = echoed(result).headers;
    expect(seen['x-kept']).toBe('yes');
    for (const gone of ['x-secret', 'x-other', 'proxy-foo', 'http2-settings', 'keep-alive']) expect(seen[gone], gone).toBeUndefined();
    // Node's own connection handling may add "connection: close"; it never carries the caller's list.
    expect(seen.connection ?? 'close').toBe('close');
  });

  it('drops names listed in Connection whatever their case or how many Connection fields there are', async () => {
    const result = await setup().call({
      url: 'http://public.test/echo',
      headers: { connection: 'x-a', CONNECTION: 'X-B', 'x-a': '1', 'X-b': '2', 'x-c': '3' },
    });
    const seen = echoed(result).headers;
    expect(seen['x-a']).toBeUndefined();
    expect(seen['x-b']).toBeUndefined();
    expect(seen['x-c']).toBe('3');
  });

  it('sends only credential-free headers to another origin after a redirect; the first origin gets them all', async () => {
    const headers = {
      'X-Api-Key': 'key-123',
      'Private-Token': 'tok',
      Authorization: 'Bearer s',
      Cookie: 'a=b',
      Accept: 'application/json',
      'Accept-Language': 'fr',
      'X-Custom': 'x',
    };
    const same = echoed(await setup().call({ url: 'http://public.test/redirect?to=/echo', headers })).headers;
    expect(same).toMatchObject({ 'x-api-key': 'key-123', 'private-token': 'tok', authorization: 'Bearer s', cookie: 'a=b', 'x-custom': 'x' });
    const away = echoed(await setup().call({ url: `http://public.test/redirect?to=${encodeURIComponent('http://other.test/echo')}`, headers })).headers;
    for (const gone of ['x-api-key', 'private-token', 'authorization', 'cookie', 'x-custom']) expect(away[gone], gone).toBeUndefined();
    expect(away).toMatchObject({ accept: 'application/json', 'accept-language': 'fr', 'user-agent': 'toolwright-fetch/0.1', host: 'other.test' });
  });
});
