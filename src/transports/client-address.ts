import type { EndpointRequest } from './http-request.js';

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
export function clientAddressKey(req: Pick<EndpointRequest, 'headers' | 'remoteAddress'>, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const list = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
    if (list) {
      const last = list.slice(list.lastIndexOf(',') + 1).trim();
      if (isIP(last)) return addressKey(last);
    }
  }
  return addressKey(req.remoteAddress);
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

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEXTET = /^[0-9a-f]{1,4}$/i;

/**
 * 4, 6 or 0, as node:net's isIP (the same answers, zone ids included), written out so that the
 * endpoint runs where node:net is not (a Worker).
 */
export function isIP(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  return isIPv6(text) ? 6 : 0;
}

function isIPv6(text: string): boolean {
  const zone = text.indexOf('%');
  if (zone === 0 || zone === text.length - 1) return false;
  const bare = zone === -1 ? text : text.slice(0, zone);
  const halves = bare.split('::');
  if (halves.length > 2) return false;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const parts = [...groups(halves[0]), ...(halves.length === 2 ? groups(halves[1]) : [])];
  let width = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (HEXTET.test(part)) width += 1;
    // A dotted IPv4 tail only as the very last part.
    else if (i === parts.length - 1 && IPV4.test(part)) width += 2;
    else return false;
  }
  return halves.length === 2 ? width <= 7 : width === 8;
}
