import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { CidrList, classifyAddress, PRIVATE_KINDS, type AddressClass } from './url-address.js';
import { HostPatterns, normalizeHost, reservedHostName } from './url-hosts.js';

/** Resolves a host name to every address it has (the default is `dns.lookup` with `all: true`). */
export type HostLookup = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export interface UrlPolicyOptions {
  /** When set, only these hosts (exact, or `*.example.com` for subdomains) may be fetched. Default: any public host. */
  allowedHosts?: readonly string[];
  /** Hosts never fetched (same patterns); checked before the allow-list. Default: none. */
  deniedHosts?: readonly string[];
  /**
   * Lets requests reach loopback, private (RFC 1918), link-local, unique-local,
   * site-local and CGNAT addresses. For tests and trusted intranets only;
   * default false. Cloud metadata, unspecified, multicast, broadcast and
   * reserved addresses stay refused.
   */
  allowPrivateNetworks?: boolean;
  /** Ranges allowed although not public (e.g. `10.20.0.0/16`); cloud metadata addresses stay refused. Default: none. */
  allowedCidrs?: readonly string[];
  /**
   * Ports a request may connect to, on every host and every redirect hop
   * (default 80 and 443). A listed set replaces the default. Other ports
   * reach services that are not web sites (SSH on 22, SMTP on 25, Redis on
   * 6379, memcached on 11211) and answer a crafted request.
   */
  allowedPorts?: readonly number[];
  /** Name resolution; default `dns.lookup` (the system resolver, /etc/hosts included). */
  lookup?: HostLookup;
}

/** The ports fetches use unless configured otherwise: the standard http and https ports. */
export const DEFAULT_ALLOWED_PORTS: readonly number[] = [80, 443];

/** A policy refusal: its message says what was refused and what the caller can do instead. */
export class UrlRefusal extends Error {
  override readonly name = 'UrlRefusal';
}

/** Where a request may go: the URL, and the one address it must connect to. */
export interface CheckedTarget {
  url: URL;
  /** The host without IPv6 brackets: the TLS server name when it is not an IP. */
  hostname: string;
  /** The checked address; the connection is pinned to it (never resolved again). */
  address: string;
  family: 4 | 6;
  port: number;
}

const SCHEMES = new Set(['http:', 'https:']);
const MAX_SHOWN = 200;

/**
 * The SSRF policy of outbound requests (issue 5, toolset http): http and
 * https only, no credentials in URLs, host allow- and deny-lists, names of
 * this machine and of metadata services refused, and the host resolved once
 * with every address checked. The caller connects to `address` and nothing
 * else, so a DNS answer that changes between check and use (rebinding)
 * cannot redirect the connection.
 */
export class UrlPolicy {
  private readonly allowed?: HostPatterns;
  private readonly denied: HostPatterns;
  private readonly cidrs: CidrList;
  private readonly lookup: HostLookup;
  private readonly ports: ReadonlySet<number>;

  constructor(private readonly options: UrlPolicyOptions = {}) {
    this.ports = new Set(options.allowedPorts ?? DEFAULT_ALLOWED_PORTS);
    this.allowed = options.allowedHosts ? new HostPatterns(options.allowedHosts) : undefined;
    this.denied = new HostPatterns(options.deniedHosts ?? []);
    this.cidrs = new CidrList(options.allowedCidrs ?? []);
    this.lookup = options.lookup ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));
  }

  /**
   * Parses with the WHATWG URL parser, which is also what normalizes every
   * spelling of an IP literal (2130706433, 0177.0.0.1, 0x7f000001, 127.1,
   * [::ffff:127.0.0.1]) to the canonical form checked later.
   */
  parse(raw: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new UrlRefusal(`${show(raw)} is not a valid absolute URL. Pass a full http:// or https:// URL (IPv6 zone ids such as %25eth0 are not supported).`);
    }
    if (!SCHEMES.has(url.protocol)) {
      throw new UrlRefusal(`Only http and https URLs can be fetched; ${show(url.href)} uses ${url.protocol.slice(0, -1)}.`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new UrlRefusal(`URLs with credentials (user:password@host) are refused: ${show(redact(url))}. Send an Authorization header instead.`);
    }
    return url;
  }

  /** Checks the host of `url` and resolves it once; refuses unless every address is allowed. */
  async check(url: URL, signal?: AbortSignal): Promise<CheckedTarget> {
    const host = normalizeHost(url.hostname);
    const hostname = host.startsWith('[') ? host.slice(1, -1) : host;
    this.checkHostLists(url, host);
    const reserved = reservedHostName(host);
    if (reserved) throw new UrlRefusal(`Refused ${show(url.href)}: ${host} is ${reserved}. ${this.remedy()}`);

    const literal = isIP(hostname);
    const addresses = literal ? [{ address: hostname, family: literal }] : await this.resolve(url, hostname, signal);
    // Every address must pass: a name with one public and one private
    // address would otherwise reach the private one on a retry or a
    // different resolver ordering.
    for (const { address } of addresses) {
      const cls = classifyAddress(address);
      if (!this.admits(cls)) throw new UrlRefusal(this.refusal(url, host, literal !== 0, cls));
    }
    const { address } = addresses[0];
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    // Checked after the address, so a refused address is reported as such whatever its port.
    if (!this.ports.has(port)) {
      throw new UrlRefusal(
        `Refused ${show(url.href)}: port ${port} is not open to fetches on this server (allowed: ${[...this.ports].join(', ')}). Use the site's standard http or https address, or ask the operator to add ${port} to the http toolset's "allowedPorts".`,
      );
    }
    // The family comes from the address itself, not from what a resolver claimed.
    return { url, hostname, address, family: isIP(address) === 6 ? 6 : 4, port };
  }

  private checkHostLists(url: URL, host: string): void {
    if (this.denied.matches(host)) throw new UrlRefusal(`Refused ${show(url.href)}: ${host} is on this server's deny-list of hosts.`);
    if (this.allowed && !this.allowed.matches(host)) {
      const list = this.allowed.patterns.length === 0 ? '(none)' : this.allowed.patterns.join(', ');
      throw new UrlRefusal(`Refused ${show(url.href)}: ${host} is not on this server's allow-list of hosts. Allowed: ${list}.`);
    }
  }

  private async resolve(url: URL, hostname: string, signal?: AbortSignal): Promise<ReadonlyArray<{ address: string; family: number }>> {
    signal?.throwIfAborted();
    let found: ReadonlyArray<{ address: string; family: number }>;
    try {
      // dns.lookup cannot be cancelled; the race stops waiting for it.
      found = await raceAbort(this.lookup(hostname), signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'lookup failed';
      throw new UrlRefusal(`Could not resolve ${hostname} (${code}) for ${show(url.href)}. Check the host name.`);
    }
    if (found.length === 0) throw new UrlRefusal(`${hostname} has no addresses; ${show(url.href)} cannot be fetched.`);
    return found;
  }

  private admits(cls: AddressClass): boolean {
    if (cls.kind === 'public') return true;
    if (cls.kind === 'cloud-metadata' || cls.kind === 'not-an-ip') return false;
    if (this.cidrs.has(cls.address)) return true;
    return this.options.allowPrivateNetworks === true && PRIVATE_KINDS.has(cls.kind);
  }

  private refusal(url: URL, host: string, literal: boolean, cls: AddressClass): string {
    // A literal is already shown in canonical form (the URL parser wrote it), so it is not repeated.
    const subject = literal
      ? `${host} is ${describe(cls, false)}`
      : `${host} resolves to ${cls.kind === 'not-an-ip' ? `an invalid address ${cls.address}` : describe(cls, true)}`;
    return `Refused ${show(url.href)}: ${subject}. ${this.remedy()}`;
  }

  private remedy(): string {
    return this.options.allowPrivateNetworks
      ? 'This server does not fetch that kind of address. Use a public or private-network URL instead.'
      : 'This server fetches public internet addresses only; it never reaches this machine, private networks or cloud metadata. Use a public URL instead.';
  }
}

const KIND_TEXT: Record<AddressClass['kind'], string> = {
  public: 'a public address',
  loopback: 'a loopback address (this machine)',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  'unique-local': 'a unique-local (private) IPv6 address',
  'site-local': 'a site-local (private) IPv6 address',
  'carrier-grade-nat': 'a carrier-grade NAT (shared) address',
  'cloud-metadata': 'a cloud metadata service address',
  unspecified: 'the unspecified address (this machine)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved or special-purpose address',
  'not-an-ip': 'not an IP address',
};

function describe(cls: AddressClass, withAddress: boolean): string {
  const kind = KIND_TEXT[cls.kind];
  if (!cls.embedded) return withAddress ? `${cls.address}, ${kind}` : kind;
  const form = `the ${cls.embedded.form} form of ${cls.embedded.address}`;
  return withAddress ? `${cls.address} (${form}), ${kind}` : `${form}, ${kind}`;
}

function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Caps a URL shown in a message: hostile input must not blow up the text. */
export function show(url: string): string {
  return url.length > MAX_SHOWN ? `${url.slice(0, MAX_SHOWN)}…` : url;
}

function redact(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href.replace('://', '://***@');
}
