import { isIP } from 'node:net';
import { readNodeCapped } from '../io/read-node-capped.js';
import { UrlRefusal, type UrlPolicy } from '../policy/urls.js';
import { nodeHttps } from '../runtime/lazy-tls.js';
import { checkedMetadata, ClientError, type ClientRecord } from './clients.js';
import type { AuthProxyStore } from './store.js';

/** A metadata document is small (the draft suggests 5 KB); more is refused unread. */
const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
/** How long a fetched document is used before it is fetched again. */
const CACHE_TTL_MS = 5 * 60_000;

/** Test and intranet hook: extra CA certificates trusted for metadata documents (the system's are always trusted). */
export interface MetadataFetchOptions {
  ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * A client whose id is the https URL of its metadata document (MCP authorization, "Client ID
 * Metadata Documents"): fetched with the same URL policy as the http toolset (public addresses
 * only by default, every resolved address checked, the connection pinned to the checked one, no
 * redirects followed), capped in size and time, and cached a few minutes. The document's
 * `client_id` must be the URL itself; it may not ask for a client secret.
 */
export async function fetchClientMetadataDocument(
  store: AuthProxyStore,
  clientId: string,
  policy: UrlPolicy,
  supportedScopes: readonly string[],
  options: MetadataFetchOptions = {},
): Promise<ClientRecord | undefined> {
  const cached = await store.get(`cimd:${clientId}`);
  if (cached) return JSON.parse(cached) as ClientRecord;
  let url: URL;
  try {
    url = policy.parse(clientId);
  } catch {
    return undefined;
  }
  // The draft: an https URL with a path; the id must be exactly the URL (no fragment, no dot segments).
  if (url.protocol !== 'https:' || url.pathname === '/' || url.hash || url.href !== clientId) return undefined;
  let doc: unknown;
  try {
    const target = await policy.check(url);
    doc = JSON.parse(await getPinned(url, target.address, target.port, options));
  } catch (err) {
    if (err instanceof UrlRefusal) throw new ClientError('invalid_client', 'the client metadata document is at an address this server does not fetch');
    throw new ClientError('invalid_client', 'the client metadata document could not be fetched or is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || (doc as { client_id?: unknown }).client_id !== clientId)
    throw new ClientError('invalid_client', 'the client metadata document does not name its own URL as client_id');
  const body = doc as Record<string, unknown>;
  if (body.client_secret !== undefined || body.client_secret_expires_at !== undefined)
    throw new ClientError('invalid_client', 'a client metadata document must not carry a client secret');
  const method = body.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new ClientError('invalid_client', 'clients described by a metadata document are public here (token_endpoint_auth_method: none)');
  const record: ClientRecord = {
    ...checkedMetadata({ ...body, token_endpoint_auth_method: 'none' }, supportedScopes),
    client_id: clientId,
    source: 'metadata-document',
  };
  await store.put(`cimd:${clientId}`, JSON.stringify(record), CACHE_TTL_MS);
  return record;
}

/** GET over https to the checked address only; the certificate is verified for the URL's host. */
function getPinned(url: URL, address: string, port: number, options: MetadataFetchOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = nodeHttps().request(
      {
        host: address,
        port,
        family: isIP(address) || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, accept: 'application/json' },
        agent: false,
        servername: isIP(url.hostname.replace(/^\[|\]$/g, '')) ? undefined : url.hostname,
        rejectUnauthorized: true,
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        timeout: FETCH_TIMEOUT_MS,
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.destroy();
          reject(new Error(`status ${res.statusCode}`));
          return;
        }
        readNodeCapped(res, MAX_DOCUMENT_BYTES, () => new Error('too large')).then((body) => resolve(body.toString('utf8')), reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end();
  });
}
