import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentServer, httpServer, publicNetwork, TEST_CA, type Listening } from './helpers.js';

/**
 * The connection is pinned to the checked IP, yet https must still verify
 * the certificate for the URL's host name. An https server on 127.0.0.1 with
 * a certificate for `public.test` (signed by a test CA) stands in for the
 * public host; `other.test` resolves to the same address, so only name
 * verification can tell them apart.
 */
const PUBLIC = '93.184.215.15';
let secure: Listening;

beforeAll(async () => {
  secure = await contentServer(true);
});
afterAll(async () => {
  await secure.close();
});

function setup(withCa = true) {
  const net = publicNetwork({ 'public.test': PUBLIC, 'other.test': PUBLIC }, { [PUBLIC]: secure.port });
  return httpServer({ lookup: net.lookup, dialOverride: net.dialOverride, ...(withCa ? { ca: TEST_CA } : {}) });
}

describe('fetch_url over https with a pinned address', () => {
  it('verifies the certificate against the URL host (SNI and identity) and fetches', async () => {
    const result = await setup().call({ url: 'https://public.test/text' });
    expect(result.isError).toBeUndefined();
    expect(result.content[0].text).toContain('hello text ✓');
    expect(secure.requests.at(-1)).toBe('GET /text public.test');
    expect(secure.servernames.at(-1)).toBe('public.test');
  });

  it('refuses a certificate issued for another name, although the address is the same', async () => {
    const result = await setup().call({ url: 'https://other.test/text' });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      'Could not fetch https://other.test/text: the TLS certificate of other.test is not valid for that name, so the connection was refused. Check the host name.',
    );
  });

  it('refuses a certificate from an authority it does not trust', async () => {
    const result = await setup(false).call({ url: 'https://public.test/text' });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('is not signed by an authority this server trusts');
  });

  it('refuses a redirect from https down to http', async () => {
    const result = await setup().call({ url: `https://public.test/redirect?to=${encodeURIComponent('http://public.test/text')}` });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('https must not fall back to unencrypted http');
  });
});
