import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What kind of address an IP is, for the SSRF checks of outbound requests.
 * 'public' is the only kind reachable by default; every other kind names
 * why not, so a refusal can say it.
 */
type AddressKind =
  | 'public'
  | 'loopback'
  | 'private' // 10/8, 172.16/12, 192.168/16
  | 'link-local' // 169.254/16, fe80::/10
  | 'unique-local' // fc00::/7
  | 'site-local' // fec0::/10 (deprecated, still routed on some networks)
  | 'carrier-grade-nat' // 100.64/10
  | 'cloud-metadata'
  | 'unspecified' // 0.0.0.0/8, :: — connecting to it reaches this host
  | 'multicast'
  | 'broadcast'
  | 'reserved' // documentation, benchmarking, 240/4, IETF protocol assignments, …
  | 'not-an-ip';

/** Kinds `allowPrivateNetworks` opens: networks a deployment may own. The rest stay shut. */
export const PRIVATE_KINDS: ReadonlySet<AddressKind> = new Set(['loopback', 'private', 'link-local', 'unique-local', 'site-local', 'carrier-grade-nat']);

export interface AddressClass {
  kind: AddressKind;
  /** The address in canonical form (IPv6 compressed, with its zone id if it had one). */
  address: string;
  /** For IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, …): that address and its form. */
  embedded?: { form: string; address: string };
}

/**
 * Cloud metadata services: credentials live there, so they are refused even
 * when private networks are allowed (AWS/GCP/Azure/OpenStack 169.254.169.254,
 * AWS IPv6 fd00:ec2::254, ECS task metadata 169.254.170.2, Alibaba
 * 100.100.100.200, Azure wireserver 168.63.129.16, Oracle 192.0.0.192).
 */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16', '192.0.0.192', 'fd00:ec2::254']);

const V4_KIND: Record<string, AddressKind> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade-nat',
  private: 'private',
};

/** Global unicast space (2000::/3): the only IPv6 space treated as public. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const SITE_LOCAL = ipaddr.IPv6.parseCIDR('fec0::/10');
/** The deprecated IPv4-compatible form ::a.b.c.d (ipaddr.js calls it unicast). */
const V4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/**
 * Classifies one IP address. Deny by default: an IPv4 address is public only
 * if no special-purpose range holds it; an IPv6 address only if it lies in
 * global unicast space outside every special range — or, for the forms that
 * embed an IPv4 address, if that address is public.
 */
export function classifyAddress(input: string): AddressClass {
  const family = isIP(input);
  if (family === 0) return { kind: 'not-an-ip', address: input };
  if (family === 4) return classifyV4(ipaddr.IPv4.parse(input));
  const v6 = ipaddr.IPv6.parse(input);
  const address = v6.toString();
  if (address === 'fd00:ec2::254') return { kind: 'cloud-metadata', address };
  const embedded = embeddedV4(v6);
  if (embedded) {
    const inner = classifyV4(embedded.v4);
    return { kind: inner.kind, address, embedded: { form: embedded.form, address: inner.address } };
  }
  const range = v6.range();
  if (range === 'loopback') return { kind: 'loopback', address };
  if (range === 'unspecified') return { kind: 'unspecified', address };
  if (range === 'linkLocal') return { kind: 'link-local', address };
  if (range === 'uniqueLocal') return { kind: 'unique-local', address };
  if (range === 'multicast') return { kind: 'multicast', address };
  if (v6.match(SITE_LOCAL)) return { kind: 'site-local', address };
  if (range === 'unicast' && v6.match(GLOBAL_UNICAST)) return { kind: 'public', address };
  // Teredo, documentation, benchmarking, ORCHID, discard-only, unallocated space, …
  return { kind: 'reserved', address };
}

function classifyV4(v4: ipaddr.IPv4): AddressClass {
  const address = v4.toString();
  if (METADATA.has(address)) return { kind: 'cloud-metadata', address };
  // ipaddr.js's 'reserved', 'benchmarking', 'as112', 'amt' and any future name fall to 'reserved'.
  return { kind: V4_KIND[v4.range()] ?? 'reserved', address };
}

/**
 * IPv6 forms through which a packet reaches an IPv4 address: IPv4-mapped
 * (::ffff:a.b.c.d, which a dual-stack socket connects to over IPv4), SIIT
 * (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4
 * (2002:aabb:ccdd::/48) and the deprecated IPv4-compatible ::a.b.c.d.
 * Teredo is not unpacked: it is refused as reserved.
 */
function embeddedV4(v6: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | undefined {
  const range = v6.range();
  const p = v6.parts;
  const last32 = () => new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  if (range === 'ipv4Mapped') return { form: 'IPv4-mapped IPv6', v4: v6.toIPv4Address() };
  if (range === 'rfc6145') return { form: 'IPv4-translated IPv6', v4: last32() };
  if (range === 'rfc6052') return { form: 'NAT64 IPv6', v4: last32() };
  if (range === '6to4') return { form: '6to4 IPv6', v4: new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]) };
  // :: and ::1 are themselves (unspecified, loopback), not embeddings.
  if (v6.match(V4_COMPATIBLE) && (p[6] !== 0 || p[7] > 1)) return { form: 'IPv4-compatible IPv6', v4: last32() };
  return undefined;
}

/** A set of CIDR ranges (IPv4 and IPv6) an operator explicitly allows. */
export class CidrList {
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  constructor(cidrs: readonly string[]) {
    this.ranges = cidrs.map((cidr) => {
      try {
        // A bare address is a one-address range.
        return cidr.includes('/')
          ? ipaddr.parseCIDR(cidr)
          : (() => {
              const a = ipaddr.parse(cidr);
              return [a, a.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
            })();
      } catch {
        throw new RangeError(`"${cidr}" is not a CIDR range such as 10.0.0.0/8 or fd00::/8`);
      }
    });
  }

  has(address: string): boolean {
    if (isIP(address) === 0 || this.ranges.length === 0) return false;
    const parsed = ipaddr.parse(address);
    // An IPv4-mapped IPv6 address is matched as the IPv4 address it reaches.
    const a = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
    return this.ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));
  }
}
