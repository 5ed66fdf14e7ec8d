import { MAX_REDIRECT_URIS, redirectUriProblem } from './redirect-uris.js';
import { hashOf, randomToken, sameText } from './secrets.js';
import type { AuthProxyStore } from './store.js';

/** A client as the facade knows it: registered here (RFC 7591) or described by its metadata document (client ID metadata documents). */
export interface ClientRecord {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post';
  /** SHA-256 of the secret toolwright issued; never the provider's secret, never stored in clear. */
  secret_hash?: string;
  scope?: string;
  /** Registered here, or fetched from the URL its id is. */
  source: 'registered' | 'metadata-document';
}

export class ClientError extends Error {
  constructor(
    readonly error: 'invalid_client_metadata' | 'invalid_redirect_uri' | 'invalid_client',
    message: string,
  ) {
    super(message);
  }
}

/** How long a registration lasts unused (a client registers again after). */
const REGISTRATION_TTL_MS = 90 * 24 * 3600_000;
const AUTH_METHODS = new Set(['none', 'client_secret_basic', 'client_secret_post']);
const GRANTS = new Set(['authorization_code', 'refresh_token']);

/**
 * Dynamic client registration (RFC 7591) answered by toolwright itself: public clients (PKCE,
 * `token_endpoint_auth_method: none`) by default; a confidential one gets a secret toolwright
 * makes, shown once and kept hashed. The provider's client id and secret are never part of it.
 */
export async function registerClient(store: AuthProxyStore, body: unknown, supportedScopes: readonly string[]): Promise<Record<string, unknown>> {
  const doc = checkedMetadata(body, supportedScopes);
  const client_id = `tw_${randomToken()}`;
  const secret = doc.token_endpoint_auth_method === 'none' ? undefined : randomToken();
  const record: ClientRecord = { ...doc, client_id, source: 'registered', ...(secret ? { secret_hash: hashOf(secret) } : {}) };
  await store.put(`client:${client_id}`, JSON.stringify(record), REGISTRATION_TTL_MS);
  return {
    client_id,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: doc.client_name,
    redirect_uris: doc.redirect_uris,
    token_endpoint_auth_method: doc.token_endpoint_auth_method,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(doc.scope ? { scope: doc.scope } : {}),
  };
}

/** The parts of a registration request (or metadata document) the facade keeps, checked. */
export function checkedMetadata(body: unknown, supportedScopes: readonly string[]): Omit<ClientRecord, 'client_id' | 'source'> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ClientError('invalid_client_metadata', 'the client metadata must be a JSON object');
  const doc = body as Record<string, unknown>;
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw new ClientError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI');
  if (uris.length > MAX_REDIRECT_URIS) throw new ClientError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect URIs may be registered`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientError('invalid_redirect_uri', problem);
  }
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (typeof method !== 'string' || !AUTH_METHODS.has(method))
    throw new ClientError('invalid_client_metadata', 'token_endpoint_auth_method must be none, client_secret_basic or client_secret_post');
  if (doc.grant_types !== undefined && (!Array.isArray(doc.grant_types) || !doc.grant_types.every((g) => GRANTS.has(g as string))))
    throw new ClientError('invalid_client_metadata', 'grant_types may hold only authorization_code and refresh_token');
  if (doc.response_types !== undefined && (!Array.isArray(doc.response_types) || !doc.response_types.every((t) => t === 'code')))
    throw new ClientError('invalid_client_metadata', 'response_types may hold only code');
  const name = doc.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > 200))
    throw new ClientError('invalid_client_metadata', 'client_name must be a string of at most 200 characters');
  const scope = doc.scope;
  if (scope !== undefined) {
    if (typeof scope !== 'string') throw new ClientError('invalid_client_metadata', 'scope must be a space-separated string');
    const unknown = scope.split(' ').filter((s) => s && !supportedScopes.includes(s));
    if (unknown.length) throw new ClientError('invalid_client_metadata', `unsupported scope: ${unknown.join(' ').slice(0, 200)}`);
  }
  return {
    redirect_uris: uris as string[],
    token_endpoint_auth_method: method as ClientRecord['token_endpoint_auth_method'],
    ...(typeof name === 'string' && name ? { client_name: name } : {}),
    ...(typeof scope === 'string' && scope ? { scope } : {}),
  };
}

/** A client registered here, by id; undefined when there is none (metadata documents: context.ts lookupClient). */
export async function findClient(store: AuthProxyStore, clientId: string): Promise<ClientRecord | undefined> {
  if (!clientId.startsWith('tw_') || clientId.length > 100) return undefined;
  const text = await store.get(`client:${clientId}`);
  return text ? (JSON.parse(text) as ClientRecord) : undefined;
}

/**
 * Client authentication at /token and /revoke (RFC 6749 §2.3): a public client names itself
 * (`client_id`); a confidential one proves its secret by HTTP Basic or in the body, as it
 * registered. Returns the client or throws ClientError('invalid_client').
 */
export async function authenticateClient(
  authorization: string | undefined,
  form: Map<string, string>,
  lookup: (id: string) => Promise<ClientRecord | undefined>,
): Promise<ClientRecord> {
  let id = form.get('client_id');
  let secret = form.get('client_secret');
  let method: ClientRecord['token_endpoint_auth_method'] = secret === undefined ? 'none' : 'client_secret_post';
  if (authorization?.toLowerCase().startsWith('basic ')) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1 || secret !== undefined) throw new ClientError('invalid_client', 'malformed client authentication');
    const basicId = safeDecode(decoded.slice(0, colon));
    if (id !== undefined && id !== basicId) throw new ClientError('invalid_client', 'client_id differs from the authenticated client');
    id = basicId;
    secret = safeDecode(decoded.slice(colon + 1));
    method = 'client_secret_basic';
  }
  if (!id) throw new ClientError('invalid_client', 'client_id is required');
  const client = await lookup(id);
  if (!client) throw new ClientError('invalid_client', 'unknown client');
  if (client.token_endpoint_auth_method !== method)
    throw new ClientError('invalid_client', `this client authenticates with ${client.token_endpoint_auth_method}`);
  if (method !== 'none' && !(client.secret_hash && secret !== undefined && sameText(hashOf(secret), client.secret_hash)))
    throw new ClientError('invalid_client', 'client authentication failed');
  return client;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
