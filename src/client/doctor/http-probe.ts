import { LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION } from '../../protocol/versions.js';
import { discoverAuthorizationServer, discoverProtectedResource } from '../auth/discovery.js';
import type { TokenStore } from '../auth/types.js';
import { canonicalResource } from '../auth/urls.js';
import { parseBearerChallenge } from '../auth/www-authenticate.js';
import { bounded, clean, messageOf } from './clean.js';
import type { StepLog } from './steps.js';

/** What one raw MCP POST got back. */
interface Answer {
  status: number;
  contentType: string;
  challenge: string | null;
  body: string;
}

const BODY_CAP = 2048;

/**
 * POSTs a real MCP request as a client would: the modern era's `server/discover`,
 * then a legacy `initialize` when the modern one is refused. Says what came back.
 * Returns the status of the answer the rest of the diagnosis goes on from.
 */
export async function checkHttp(log: StepLog, url: URL, headers: Record<string, string>, timeoutMs: number): Promise<Answer | undefined> {
  const result = await log.run<Answer>('http', async () => {
    try {
      let answer = await bounded(timeoutMs, 'the MCP request', (signal) => post(url, headers, modernRequest(), LATEST_MODERN_VERSION, signal));
      let tried = 'server/discover';
      if (answer.status >= 400 && answer.status < 500 && answer.status !== 401 && answer.status !== 403 && answer.status !== 404) {
        const legacy = await bounded(timeoutMs, 'the MCP request', (signal) => post(url, headers, legacyRequest(), undefined, signal));
        if (legacy.status < 300 || answer.status === 405) answer = legacy;
        tried = 'server/discover, then initialize';
      }
      return { step: judge(answer, url, tried), value: answer };
    } catch (err) {
      return {
        step: {
          status: 'failed',
          summary: 'the HTTP request failed',
          detail: messageOf(err),
          hint: 'the server accepted the connection but did not answer: is it an HTTP server, and not overloaded?',
        },
      };
    }
  });
  return result.value;
}

function judge(answer: Answer, url: URL, tried: string): { status: 'ok' | 'failed'; summary: string; detail?: string; hint?: string } {
  const summary = `HTTP ${answer.status}${answer.contentType ? `, ${clean(answer.contentType, 80)}` : ''} (${tried})`;
  const detail = answer.body ? clean(answer.body, 300) : undefined;
  const withDetail = detail ? { detail } : {};
  if (/^text\/html/i.test(answer.contentType) || /^\s*<(!doctype|html)/i.test(answer.body))
    return {
      status: 'failed',
      summary: `${summary}: this is a web page, not an MCP endpoint`,
      hint: `check the URL: MCP servers are usually served at ${url.origin}/mcp`,
    };
  if (answer.status === 401 || answer.status === 403) return { status: 'failed', summary: `${summary}: the server wants authorization`, ...withDetail };
  if (answer.status === 404)
    return {
      status: 'failed',
      summary: `${summary}: nothing is served at ${url.pathname}`,
      hint: url.pathname === '/mcp' ? 'check the path the server is mounted at' : `MCP servers are usually served at /mcp: try ${url.origin}/mcp`,
    };
  if (answer.status === 405)
    return {
      status: 'failed',
      summary: `${summary}: this path does not take POST`,
      hint: `this is not an MCP endpoint (they take POST): try ${url.origin}/mcp`,
    };
  if (answer.status >= 500) return { status: 'failed', summary: `${summary}: the server failed`, ...withDetail, hint: "look at the server's logs" };
  if (answer.status >= 300 && answer.status < 400) return { status: 'failed', summary: `${summary}: a redirect`, hint: 'use the URL it redirects to' };
  if (answer.status >= 400) return { status: 'failed', summary: `${summary}: the server refused the request`, ...withDetail };
  if (!/^(application\/json|text\/event-stream)/i.test(answer.contentType))
    return {
      status: 'failed',
      summary: `${summary}: not an MCP answer (neither JSON nor an event stream)`,
      ...withDetail,
      hint: 'check the URL points at an MCP endpoint',
    };
  return { status: 'ok', summary };
}

function modernRequest(): Record<string, unknown> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': LATEST_MODERN_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'toolwright-doctor', version: '1' },
  };
  return { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } };
}

function legacyRequest(): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'toolwright-doctor', version: '1' } },
  };
}

async function post(
  url: URL,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  version: string | undefined,
  signal: AbortSignal,
): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    signal,
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(version ? { 'mcp-protocol-version': version, 'mcp-method': String(body.method) } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await readCapped(response);
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', challenge: response.headers.get('www-authenticate'), body: text };
}

/** At most BODY_CAP bytes: the rest of a large or endless answer is not read. */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < BODY_CAP) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, BODY_CAP).toString('utf8');
}

/** For a 401/403: the challenge, the Protected Resource Metadata (RFC 9728) and the authorization server's metadata (RFC 8414/OIDC). */
export async function checkAuthMetadata(log: StepLog, url: URL, challengeHeader: string | null, timeoutMs: number): Promise<void> {
  await log.run('auth-metadata', async () => {
    const challenge = parseBearerChallenge(challengeHeader);
    const said = challengeHeader ? `WWW-Authenticate: ${clean(challengeHeader, 200)}` : 'no WWW-Authenticate challenge';
    try {
      const resource = await bounded(timeoutMs, 'the Protected Resource Metadata fetch', (signal) => discoverProtectedResource(url, challenge, fetch, signal));
      const issuer = resource.authorizationServers[0];
      const server = await bounded(timeoutMs, 'the authorization server metadata fetch', (signal) => discoverAuthorizationServer(issuer, fetch, signal));
      return {
        step: {
          status: 'ok',
          summary: `OAuth: the authorization server is ${clean(issuer, 200)}`,
          detail: `${said}; resource ${clean(resource.resource, 200)}; token endpoint ${clean(server.tokenEndpoint, 200)}${resource.scopesSupported ? `; scopes ${clean(resource.scopesSupported.join(' '), 200)}` : ''}`,
          hint: `sign in with: toolwright login ${url.href}`,
        },
      };
    } catch (err) {
      return {
        step: {
          status: 'failed',
          summary: 'no usable OAuth metadata',
          detail: `${said}; ${messageOf(err)}`,
          hint: "if the server takes API keys, pass one with --header 'Authorization: Bearer <key>'",
        },
      };
    }
  });
}

/** Whether credentials went with the request: a header of the user's (its value never shown), or tokens `toolwright login` stored. */
export async function checkToken(log: StepLog, url: URL, headers: Record<string, string>, store: TokenStore | undefined, refused: boolean): Promise<void> {
  await log.run('token', async () => {
    const header = Object.keys(headers).find((h) => h.toLowerCase() === 'authorization');
    if (header)
      return {
        step: refused
          ? { status: 'failed', summary: 'an Authorization header was sent, and refused', hint: 'check the key or token is current and valid for this server' }
          : { status: 'ok', summary: 'an Authorization header is sent (its value is not shown)' },
      };
    // Stored under the server's canonical URL, as OAuthClient looks them up (no query, no trailing slash).
    const tokens = await store?.loadTokens(canonicalResource(url)).catch(() => undefined);
    if (tokens)
      return {
        step: {
          status: refused ? 'warning' : 'ok',
          summary: 'a token stored by toolwright login exists for this server',
          ...(refused ? { hint: `if it is refused, sign in again: toolwright login ${url.href}` } : {}),
        },
      };
    return {
      step: {
        status: refused ? 'failed' : 'ok',
        summary: 'no credentials: no Authorization header, no stored token',
        ...(refused ? { hint: `sign in with toolwright login ${url.href}, or pass --header 'Authorization: Bearer <key>'` } : {}),
      },
    };
  });
}
