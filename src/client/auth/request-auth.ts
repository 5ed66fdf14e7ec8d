import { META } from '../../protocol/meta.js';
import { LATEST_MODERN_VERSION } from '../../protocol/versions.js';
import { AuthorizationError } from '../errors.js';
import type { DpopKey } from './dpop.js';
import { parseBearerChallenge, type BearerChallenge } from './www-authenticate.js';

/** The server's requests as OAuthClient sends them: with which credentials, and what each one does. */

/** The request with this server's bearer token, and no redirect followed (the token must not go where a redirect points). */
export function withBearer(init: RequestInit, token: string | undefined): RequestInit {
  if (!token) return init;
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers, redirect: 'manual' };
}

/** The request with this server's DPoP-bound token and a fresh proof of possession for it (RFC 9449 §7.1). */
export async function withDpop(init: RequestInit, url: URL, token: string, key: DpopKey, nonce: string | undefined): Promise<RequestInit> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `DPoP ${token}`);
  headers.set('dpop', await key.proof(init.method ?? 'GET', url, { accessToken: token, ...(nonce !== undefined ? { nonce } : {}) }));
  return { ...init, headers, redirect: 'manual' };
}

/** What a request does, to track step-ups per operation: its method and tool name. */
export function operationOf(init: RequestInit): string {
  const headers = new Headers(init.headers);
  const method = headers.get('mcp-method');
  if (method) return `${method}${headers.get('mcp-name') ? ` ${headers.get('mcp-name')}` : ''}`;
  if (typeof init.body === 'string' && init.body.length < 1_000_000) {
    try {
      const message = JSON.parse(init.body) as { method?: unknown; params?: { name?: unknown } };
      if (typeof message.method === 'string') return `${message.method}${typeof message.params?.name === 'string' ? ` ${message.params.name}` : ''}`;
    } catch {
      // not JSON: one bucket for all such requests
    }
  }
  return 'request';
}

/**
 * An unauthenticated request to the server (a modern `server/discover`):
 * its status, and its challenge when it answers 401.
 */
export async function probeChallenge(http: typeof fetch, server: URL, signal?: AbortSignal): Promise<{ status: number; challenge?: BearerChallenge }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: { [META.protocolVersion]: LATEST_MODERN_VERSION, [META.clientCapabilities]: {} } },
  });
  try {
    const response = await http(server, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': LATEST_MODERN_VERSION,
        'mcp-method': 'server/discover',
      },
      body,
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(15_000)]) : AbortSignal.timeout(15_000),
    });
    await response.body?.cancel().catch(() => {});
    const challenge = response.status === 401 ? parseBearerChallenge(response.headers.get('www-authenticate')) : undefined;
    return { status: response.status, ...(challenge ? { challenge } : {}) };
  } catch (err) {
    throw new AuthorizationError(`could not reach ${server.origin}: ${(err as Error).message}`, undefined, { cause: err });
  }
}
