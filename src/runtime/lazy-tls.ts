import { createRequire } from 'node:module';

type NodeHttps = typeof import('node:https');
type NodeTls = typeof import('node:tls');
let https: NodeHttps | undefined;
let tls: NodeTls | undefined;

/**
 * node:https and node:tls, loaded on first use. Loading either loads TLS and with it
 * node:crypto (~8 ms of a start-up, the same as lazy-crypto.ts saves), while a server needs them
 * only for its first outgoing https request (fetch_url, a client metadata document, an https
 * upstream of the gateway), if ever.
 */
export function nodeHttps(): NodeHttps {
  return (https ??= createRequire(import.meta.url)('node:https') as NodeHttps);
}

export function nodeTls(): NodeTls {
  return (tls ??= createRequire(import.meta.url)('node:tls') as NodeTls);
}
