import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { canary, contentServer, httpServer, publicNetwork, type Listening } from './helpers.js';

/**
 * Every forbidden address form is tried against canary listeners on
 * 127.0.0.1 and ::1 that must never see a connection. The policy runs with
 * its defaults (no private networks). "Public" hosts exist through a test
 * resolver and a dial override that sends approved public addresses to a
 * loopback content server (see publicNetwork in helpers.ts).
 */
const PUBLIC = '93.184.215.14';

let c4: Listening;
let c6: Listening;
let site: Listening;
let C: number;
let rebindCalls = 0;

beforeAll(async () => {
  c4 = await canary('127.0.0.1');
  c6 = await canary('::1');
  site = await contentServer();
  C = c4.port;
});
afterAll(async () => {
  await Promise.all([c4.close(), c6.close(), site.close()]);
});
afterEach(() => {
  expect(c4.connections, 'the IPv4 canary was reached').toBe(0);
  expect(c6.connections, 'the IPv6 canary was reached').toBe(0);
});

function setup(extra: Parameters<typeof httpServer>[0] = {}) {
  const net = publicNetwork(
    {
      'public.test': PUBLIC,
      'evil.test': '127.0.0.1',
      'mixed.test': [PUBLIC, '127.0.0.1'],
      'mapped.test': '::ffff:127.0.0.1',
      'v6-loop.test': '::1',
      'meta.test': '169.254.169.254',
      'ten.test': '10.0.0.5',
      'garbage.test': '0177.0.0.1',
      // DNS rebinding: public for the check, loopback for any later lookup.
      'rebind.test': () => (rebindCalls++ === 0 ? [PUBLIC] : ['127.0.0.1']),
    },
    { [PUBLIC]: site.port },
  );
  // Every port these tests use is open, so each refusal here is the address policy's (ports-headers.test.ts tests the port policy).
  const allowedPorts = [80, 443, C, c6.port, site.port];
  return { ...httpServer({ lookup: net.lookup, dialOverride: net.dialOverride, allowedPorts, ...extra }), lookups: net.lookups };
}

async function expectRefused(s: ReturnType<typeof setup>, url: string, why: string) {
  const result = await s.call({ url });
  expect(result.isError, url).toBe(true);
  expect(result.content[0].text, url).toContain(why);
  // Refusals are results the model can act on, never internal errors.
  expect(result.content[0].text, url).not.toContain('internal error');
}

const LOOPBACK = 'a loopback address (this machine)';

describe('SSRF: IP literals in every spelling', () => {
  const forms: Array<[string, string]> = [
    ['http://127.0.0.1:C/', LOOPBACK],
    ['http://2130706433:C/', LOOPBACK], // decimal
    ['http://0177.0.0.1:C/', LOOPBACK], // octal
    ['http://017700000001:C/', LOOPBACK], // octal, one number
    ['http://0x7f000001:C/', LOOPBACK], // hex
    ['http://0x7f.0.0.1:C/', LOOPBACK], // hex part
    ['http://127.1:C/', LOOPBACK], // short
    ['http://127.0.1:C/', LOOPBACK],
    ['http://127.0.0.1.:C/', LOOPBACK], // trailing dot
    ['http://%31%32%37.0.0.1:C/', LOOPBACK], // percent-encoded
    ['http://１２７.０.０.１:C/', LOOPBACK], // full-width digits (IDNA maps them)
    ['http://127.255.255.254:C/', LOOPBACK],
    ['http://[::1]:C6/', LOOPBACK],
    ['http://[0:0:0:0:0:0:0:1]:C6/', LOOPBACK],
    ['http://[::ffff:127.0.0.1]:C/', 'the IPv4-mapped IPv6 form of 127.0.0.1'],
    ['http://[::ffff:7f00:1]:C/', 'the IPv4-mapped IPv6 form of 127.0.0.1'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]:C/', 'the IPv4-mapped IPv6 form of 127.0.0.1'],
    ['http://[::ffff:0:127.0.0.1]:C/', 'the IPv4-translated IPv6 form of 127.0.0.1'],
    ['http://[::127.0.0.1]:C/', 'the IPv4-compatible IPv6 form of 127.0.0.1'],
    ['http://[64:ff9b::127.0.0.1]:C/', 'the NAT64 IPv6 form of 127.0.0.1'],
    ['http://[2002:7f00:1::]:C/', 'the 6to4 IPv6 form of 127.0.0.1'],
    ['http://[2002:a9fe:a9fe::]/', 'is the 6to4 IPv6 form of 169.254.169.254, a cloud metadata service address'],
    ['http://0.0.0.0:C/', 'the unspecified address'],
    ['http://0:C/', 'the unspecified address'],
    ['http://[::]:C6/', 'the unspecified address'],
    ['http://localhost:C/', 'is a name for this machine'],
    ['http://LOCALHOST.:C/', 'is a name for this machine'],
    ['http://app.localhost:C/', 'is a name for this machine'],
  ];
  it.each(forms)('refuses %s', async (form, why) => {
    const s = setup();
    await expectRefused(s, form.replace(':C6/', `:${c6.port}/`).replace(':C/', `:${C}/`), why);
    // Literals are checked as they are: no lookup happens.
    expect(s.lookups).toEqual([]);
  });
});

describe('SSRF: private, link-local, metadata and special ranges', () => {
  const forms: Array<[string, string]> = [
    ['http://169.254.169.254/latest/meta-data/', 'a cloud metadata service address'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'a cloud metadata service address'],
    ['http://100.100.100.200/latest/meta-data/', 'a cloud metadata service address'],
    ['http://[::ffff:169.254.169.254]/', 'a cloud metadata service address'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'is a cloud metadata service name'],
    ['http://metadata/computeMetadata/v1/', 'is a cloud metadata service name'],
    ['http://169.254.1.1/', 'a link-local address'],
    ['http://10.0.0.1/', 'a private-network address'],
    ['http://172.16.0.1/', 'a private-network address'],
    ['http://192.168.1.1/', 'a private-network address'],
    ['http://100.64.0.1/', 'a carrier-grade NAT (shared) address'],
    ['http://198.18.0.1/', 'a reserved or special-purpose address'], // benchmarking
    ['http://192.0.2.1/', 'a reserved or special-purpose address'], // documentation
    ['http://240.0.0.1/', 'a reserved or special-purpose address'],
    ['http://224.0.0.1/', 'a multicast address'],
    ['http://255.255.255.255/', 'the broadcast address'],
    ['http://[fe80::1]/', 'a link-local address'],
    ['http://[fc00::1]/', 'a unique-local (private) IPv6 address'],
    ['http://[fd12:3456::1]/', 'a unique-local (private) IPv6 address'],
    ['http://[fec0::1]/', 'a site-local (private) IPv6 address'],
    ['http://[ff02::1]/', 'a multicast address'],
    ['http://[2001:db8::1]/', 'a reserved or special-purpose address'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'a reserved or special-purpose address'], // Teredo
  ];
  it.each(forms)('refuses %s', async (url, why) => {
    await expectRefused(setup(), url, why);
  });
});

describe('SSRF: names that resolve to forbidden addresses', () => {
  const forms: Array<[string, string]> = [
    ['http://evil.test:C/', `evil.test resolves to 127.0.0.1, ${LOOPBACK}`],
    ['http://mixed.test:C/', `mixed.test resolves to 127.0.0.1, ${LOOPBACK}`],
    ['http://mapped.test:C/', 'mapped.test resolves to ::ffff:7f00:1 (the IPv4-mapped IPv6 form of 127.0.0.1)'],
    ['http://v6-loop.test:C/', `v6-loop.test resolves to ::1, ${LOOPBACK}`],
    ['http://meta.test/', 'meta.test resolves to 169.254.169.254, a cloud metadata service address'],
    ['http://ten.test/', 'ten.test resolves to 10.0.0.5, a private-network address'],
    ['http://garbage.test:C/', 'resolves to an invalid address 0177.0.0.1'],
    ['http://unknown.test/', 'Could not resolve unknown.test (ENOTFOUND)'],
  ];
  it.each(forms)('refuses %s', async (url, why) => {
    await expectRefused(setup(), url.replace(':C/', `:${C}/`), why);
  });

  it('refuses metadata names before resolving them', async () => {
    const s = setup();
    await expectRefused(s, 'http://metadata.google.internal/', 'cloud metadata service name');
    expect(s.lookups).toEqual([]);
  });

  it('resolves once and pins the connection: a rebinding answer never reaches the canary', async () => {
    rebindCalls = 0;
    const s = setup();
    const before = site.requests.length;
    const result = await s.call({ url: `http://rebind.test:${C}/text` });
    expect(result.isError).toBeUndefined();
    expect(result.content[0].text).toContain('hello text');
    expect(s.lookups).toEqual(['rebind.test']);
    // The content server (the pinned public address) got it, with the URL's Host.
    expect(site.requests.slice(before)).toEqual([`GET /text rebind.test:${C}`]);
  });

  it('fetches a public host (the test network works, so the refusals above are real)', async () => {
    const result = await setup().call({ url: `http://public.test:${C}/json` });
    expect(result.isError).toBeUndefined();
    expect(result.content[0].text).toContain('{"ok":true');
  });
});

describe('SSRF: redirects are re-checked', () => {
  const targets: Array<[string, string]> = [
    ['http://127.0.0.1:C/', LOOPBACK],
    ['http://localhost:C/', 'is a name for this machine'],
    ['http://2130706433:C/', LOOPBACK],
    ['http://[::ffff:127.0.0.1]:C/', 'the IPv4-mapped IPv6 form of 127.0.0.1'],
    ['http://[::1]:C6/', LOOPBACK],
    ['http://evil.test:C/', 'evil.test resolves to 127.0.0.1'],
    ['http://169.254.169.254/latest/meta-data/', 'a cloud metadata service address'],
    ['http://0.0.0.0:C/', 'the unspecified address'],
    ['file:///etc/passwd', 'Only http and https URLs can be fetched'],
    ['gopher://127.0.0.1:C/_GET', 'Only http and https URLs can be fetched'],
  ];
  for (const status of [301, 302, 303, 307, 308]) {
    it.each(targets)(`refuses a ${status} from a public host to %s`, async (target, why) => {
      const to = target.replace(':C6/', `:${c6.port}/`).replace(':C/', `:${C}/`);
      const s = setup();
      await expectRefused(s, `http://public.test:${C}/redirect?status=${status}&to=${encodeURIComponent(to)}`, why);
    });
  }
});

describe('SSRF: schemes, credentials and malformed URLs', () => {
  const forms: Array<[string, string]> = [
    ['file:///etc/passwd', 'Only http and https URLs can be fetched; file:///etc/passwd uses file.'],
    ['ftp://public.test/', 'uses ftp'],
    ['gopher://127.0.0.1:C/_GET%20/', 'uses gopher'],
    ['ws://127.0.0.1:C/', 'uses ws'],
    ['data:text/plain,hi', 'uses data'],
    ['javascript:alert(1)', 'uses javascript'],
    ['http://public.test@127.0.0.1:C/', 'URLs with credentials (user:password@host) are refused'],
    ['http://user:pass@public.test/', 'Send an Authorization header instead'],
    ['http://[fe80::1%25lo]:C/', 'is not a valid absolute URL'],
    ['/relative/path', 'is not a valid absolute URL'],
    ['http://[::1/', 'is not a valid absolute URL'],
  ];
  it.each(forms)('refuses %s', async (url, why) => {
    await expectRefused(setup(), url.replace(':C/', `:${C}/`), why);
  });

  it('never shows the password of a refused URL', async () => {
    const result = await setup().call({ url: 'http://user:hunter2@public.test/' });
    expect(result.content[0].text).not.toContain('hunter2');
  });
});

describe('SSRF: host lists and explicit exceptions', () => {
  it('an allow-list admits only its hosts and says which', async () => {
    const s = setup({ allowedHosts: ['public.test', '*.example.com'] });
    expect((await s.call({ url: `http://public.test:${C}/text` })).isError).toBeUndefined();
    await expectRefused(s, `http://evil.test:${C}/`, "evil.test is not on this server's allow-list of hosts. Allowed: public.test, *.example.com.");
    // The allow-list never opens a forbidden address.
    await expectRefused(setup({ allowedHosts: ['evil.test', '127.0.0.1'] }), `http://evil.test:${C}/`, LOOPBACK);
    await expectRefused(setup({ allowedHosts: ['127.0.0.1'] }), `http://127.0.0.1:${C}/`, LOOPBACK);
  });

  it('a deny-list refuses its hosts first', async () => {
    await expectRefused(setup({ deniedHosts: ['*.test'] }), `http://public.test:${C}/text`, "public.test is on this server's deny-list of hosts");
  });

  it('allowPrivateNetworks never opens metadata, unspecified or reserved addresses', async () => {
    const s = setup({ allowPrivateNetworks: true });
    await expectRefused(s, 'http://169.254.169.254/', 'a cloud metadata service address');
    await expectRefused(s, `http://0.0.0.0:${C}/`, 'the unspecified address');
    await expectRefused(s, 'http://192.0.2.1/', 'a reserved or special-purpose address');
    await expectRefused(s, 'http://metadata.google.internal/', 'cloud metadata service name');
  });

  it('allowedCidrs opens exactly the listed ranges (and never metadata)', async () => {
    const s = setup({ allowedCidrs: ['127.0.0.1/32', '169.254.0.0/16'] });
    const ok = await s.call({ url: `http://127.0.0.1:${site.port}/text` });
    expect(ok.isError).toBeUndefined();
    await expectRefused(s, `http://127.0.0.2:${C}/`, LOOPBACK);
    await expectRefused(s, `http://[::1]:${c6.port}/`, LOOPBACK);
    await expectRefused(s, 'http://169.254.169.254/', 'a cloud metadata service address');
  });
});
