import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The key per-address limits count under. IPv4-mapped IPv6 is IPv4; an IPv6
 * address counts by its /64, the block one host is usually given, so that
 * stepping through addresses of one's own block buys nothing.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

/**
 * Who is calling, as an address key: the socket's peer, or, with
 * `trustProxy`, the last X-Forwarded-For entry (what the nearest proxy saw;
 * earlier entries are the client's own claims). A missing or malformed entry
 * falls back to the socket.
 */
export function clientAddressKey(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const list = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
    if (list) {
      const last = list.slice(list.lastIndexOf(',') + 1).trim();
      if (isIP(last)) return addressKey(last);
    }
  }
  return addressKey(req.socket.remoteAddress);
}

/** The eight hextets of an IPv6 address, without leading zeros (an embedded IPv4 tail stays text; only the first four are used). */
function expandIpv6(address: string): string[] {
  const zone = address.indexOf('%');
  const bare = (zone === -1 ? address : address.slice(0, zone)).toLowerCase();
  const [head, tail] = bare.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // A dotted IPv4 tail stands for two hextets.
  const width = (parts: string[]) => parts.length + (parts.at(-1)?.includes('.') ? 1 : 0);
  const gap = tail === undefined ? 0 : Math.max(0, 8 - width(left) - width(right));
  return [...left, ...Array<string>(gap).fill('0'), ...right].map((h) => h.replace(/^0+(?=.)/, ''));
}
