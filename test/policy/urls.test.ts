import { describe, expect, it } from 'vitest';
import { CidrList, classifyAddress } from '../../src/policy/url-address.js';
import { HostPatterns, reservedHostName } from '../../src/policy/url-hosts.js';
import { UrlPolicy, UrlRefusal } from '../../src/policy/urls.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.215.14', 'public'],
    ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2002:808:808::', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b:1::7f00:1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fec0::1', 'site-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['100.100.100.200', 'cloud-metadata'],
    ['168.63.129.16', 'cloud-metadata'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['0177.0.0.1', 'not-an-ip'],
    ['2130706433', 'not-an-ip'],
    ['example.com', 'not-an-ip'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
  });
});

describe('HostPatterns', () => {
  const p = new HostPatterns(['api.example.com', '*.example.org', '127.1', 'Upper.Example.NET.']);
  it('matches exact hosts and suffix patterns, case- and trailing-dot-insensitively', () => {
    expect(p.matches('api.example.com')).toBe(true);
    expect(p.matches('API.example.com.')).toBe(true);
    expect(p.matches('x.api.example.com')).toBe(false);
    expect(p.matches('a.example.org')).toBe(true);
    expect(p.matches('a.b.example.org')).toBe(true);
    expect(p.matches('example.org')).toBe(false);
    expect(p.matches('badexample.org')).toBe(false);
    expect(p.matches('upper.example.net')).toBe(true);
  });

  it('writes configured IP literals the way the URL parser does', () => {
    expect(p.matches('127.0.0.1')).toBe(true);
  });

  it('refuses malformed patterns', () => {
    expect(() => new HostPatterns(['a*.example.com'])).toThrow(/not a host pattern/);
    expect(() => new HostPatterns(['*'])).toThrow(/not a host pattern/);
    expect(() => new HostPatterns(['example.com/path'])).toThrow(/not a host pattern/);
  });

  it('knows the names of this machine and of metadata services', () => {
    expect(reservedHostName('localhost')).toBe('a name for this machine');
    expect(reservedHostName('a.b.localhost.')).toBe('a name for this machine');
    expect(reservedHostName('metadata.google.internal')).toBe('a cloud metadata service name');
    expect(reservedHostName('localhost.example.com')).toBeUndefined();
  });
});

describe('CidrList', () => {
  it('matches IPv4, IPv6 and mapped addresses against the listed ranges', () => {
    const list = new CidrList(['10.20.0.0/16', 'fd00::/8', '192.0.2.7']);
    expect(list.has('10.20.3.4')).toBe(true);
    expect(list.has('10.21.0.1')).toBe(false);
    expect(list.has('::ffff:10.20.0.1')).toBe(true);
    expect(list.has('fd12::1')).toBe(true);
    expect(list.has('192.0.2.7')).toBe(true);
    expect(list.has('192.0.2.8')).toBe(false);
    expect(() => new CidrList(['10.0.0.0/33'])).toThrow(/not a CIDR range/);
  });
});

describe('UrlPolicy', () => {
  const lookupOf = (answers: Record<string, string[]>) => async (host: string) =>
    (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('checks every resolved address, not only the first', async () => {
    const policy = new UrlPolicy({ lookup: lookupOf({ 'two.test': ['8.8.8.8', '10.0.0.1'] }) });
    await expect(policy.check(policy.parse('http://two.test/'))).rejects.toThrow('two.test resolves to 10.0.0.1, a private-network address');
  });

  it('returns the first address to pin, with the port the scheme implies', async () => {
    const policy = new UrlPolicy({ lookup: lookupOf({ 'ok.test': ['2606:4700::1111', '8.8.8.8'] }) });
    expect(await policy.check(policy.parse('https://ok.test/x'))).toMatchObject({ hostname: 'ok.test', address: '2606:4700::1111', family: 6, port: 443 });
    await expect(policy.check(policy.parse('http://[2606:4700::1111]:8080/'))).rejects.toThrow(
      'port 8080 is not open to fetches on this server (allowed: 80, 443)',
    );
    const wider = new UrlPolicy({ allowedPorts: [443, 8080] });
    expect(await wider.check(wider.parse('http://[2606:4700::1111]:8080/'))).toMatchObject({
      hostname: '2606:4700::1111',
      address: '2606:4700::1111',
      port: 8080,
    });
    await expect(wider.check(wider.parse('http://[2606:4700::1111]/'))).rejects.toThrow('port 80 is not open');
  });

  it('refuses a port outside the list only after the address passed, so a forbidden address is reported as such', async () => {
    const policy = new UrlPolicy();
    await expect(policy.check(policy.parse('http://127.0.0.1:6379/'))).rejects.toThrow('a loopback address');
    await expect(policy.check(policy.parse('http://8.8.8.8:6379/'))).rejects.toThrow('port 6379 is not open');
    await expect(policy.check(policy.parse('https://8.8.8.8:0/'))).rejects.toThrow('port 0 is not open');
  });

  it('refuses a name with no addresses', async () => {
    const policy = new UrlPolicy({ lookup: lookupOf({}) });
    await expect(policy.check(policy.parse('http://empty.test/'))).rejects.toThrow(UrlRefusal);
  });

  it('stops waiting for a slow resolver when the signal aborts', async () => {
    const policy = new UrlPolicy({ lookup: () => new Promise(() => {}) });
    const signal = AbortSignal.timeout(50);
    await expect(policy.check(policy.parse('http://slow.test/'), signal)).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('opens private networks only when asked', async () => {
    const open = new UrlPolicy({ allowPrivateNetworks: true });
    expect((await open.check(open.parse('http://10.1.2.3/'))).address).toBe('10.1.2.3');
    expect((await open.check(open.parse('http://[::ffff:127.0.0.1]/'))).address).toBe('::ffff:7f00:1');
    await expect(open.check(open.parse('http://[fd00:ec2::254]/'))).rejects.toThrow('a cloud metadata service address');
  });
});
