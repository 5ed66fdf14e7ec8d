import { ToolError } from '../../protocol/tool-error.js';
import { UrlRefusal } from '../../policy/urls.js';
import { describeFetchFailure } from '../../toolsets/http/fetch-errors.js';
import { operatorPolicy, sendOnce } from './outbound.js';
import { isObject, type ClientCredentials } from './types.js';

/** A token is renewed this long (at most half its lifetime) before the server said it expires, so it never expires mid-call. */
const EXPIRY_MARGIN_MS = 30_000;
/** When the server gives no `expires_in`, a token is kept this long (and dropped on a 401). */
const DEFAULT_LIFETIME_MS = 5 * 60_000;
const MAX_TOKEN_RESPONSE = 64 * 1024;

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): one token per scheme and scope set, fetched
 * on first use, shared by concurrent calls, renewed when it expires. The client secret goes to
 * the token URL only (HTTP basic, §2.3.1); the token to the API only.
 */
export class ClientCredentialsToken {
  private token?: { value: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly schemeName: string,
    private readonly tokenUrl: URL,
    private readonly credentials: ClientCredentials,
    private readonly scopes: string[],
    private readonly timeoutMs: number,
  ) {}

  /** The current token; calls that need one while it is being fetched share that one request. */
  async get(signal: AbortSignal): Promise<string> {
    if (this.token && Date.now() < this.token.expiresAt) return this.token.value;
    // Not bound to this caller's signal: one caller cancelling must not fail the others waiting.
    this.pending ??= this.fetchToken(AbortSignal.timeout(this.timeoutMs)).finally(() => {
      this.pending = undefined;
    });
    return raceAbort(this.pending, signal);
  }

  /** The API refused the token (401): the next call fetches a new one. */
  invalidate(): void {
    this.token = undefined;
  }

  private async fetchToken(signal: AbortSignal): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.scopes.length > 0) form.set('scope', this.scopes.join(' '));
    const basic = Buffer.from(`${formEncode(this.credentials.clientId)}:${formEncode(this.credentials.clientSecret)}`).toString('base64');
    const where = `${this.tokenUrl.origin}${this.tokenUrl.pathname}`;
    let response: Awaited<ReturnType<typeof sendOnce>>;
    try {
      response = await sendOnce(operatorPolicy(this.tokenUrl), {
        url: this.tokenUrl,
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: Buffer.from(form.toString()),
        signal,
        maxBytes: MAX_TOKEN_RESPONSE,
      });
    } catch (err) {
      const why = signal.aborted
        ? `no answer within ${this.timeoutMs / 1000} s`
        : err instanceof UrlRefusal
          ? err.message
          : (describeFetchFailure(err, this.tokenUrl.host) ?? 'the request failed or timed out');
      throw new ToolError(`Could not get an OAuth token for security scheme ${JSON.stringify(this.schemeName)} from ${where}: ${why}`);
    }
    let body: { access_token?: unknown; expires_in?: unknown; error?: unknown } = {};
    try {
      const parsed: unknown = JSON.parse(response.body.toString('utf8'));
      if (isObject(parsed)) body = parsed;
    } catch {}
    if (response.status !== 200 || typeof body.access_token !== 'string' || body.access_token === '') {
      throw new ToolError(
        `Could not get an OAuth token for security scheme ${JSON.stringify(this.schemeName)} from ${where}: HTTP ${response.status}${typeof body.error === 'string' ? ` (${body.error.slice(0, 100)})` : ''}. Check the client id and secret configured for it.`,
      );
    }
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    this.token = { value: body.access_token, expiresAt: Date.now() + lifetime - Math.min(EXPIRY_MARGIN_MS, lifetime / 2) };
    return body.access_token;
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** RFC 6749 §2.3.1: client id and secret are form-encoded before they are joined and base64-encoded. */
function formEncode(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}
