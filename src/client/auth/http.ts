import { readCappedText } from '../../io/read-capped.js';
import { AuthorizationError } from '../errors.js';
import { describe } from './urls.js';

/** Metadata and token responses are small; a larger one is hostile. */
const MAX_BYTES = 256 * 1024;
/** Each authorization request's time (a hung authorization server must not hang the client). */
const TIMEOUT_MS = 15_000;

interface JsonResponse {
  status: number;
  /** The parsed body when it is a JSON object; undefined otherwise. */
  body?: Record<string, unknown>;
  headers: Headers;
}

/**
 * One request of the authorization flow, outside the MCP connection: never
 * with the bearer token, never following a redirect (a token request must not
 * carry a code or secret to wherever a redirect points; metadata is checked
 * against the URL it was asked at), bounded in size and time.
 */
export async function requestJson(fetchFn: typeof fetch, url: URL, init: RequestInit & { signal?: AbortSignal } = {}): Promise<JsonResponse> {
  const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetchFn(url, {
      ...init,
      redirect: 'manual',
      signal,
      headers: { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) },
    });
  } catch (err) {
    if (init.signal?.aborted) throw init.signal.reason;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new AuthorizationError(`could not reach ${url.origin}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, undefined, { cause: err });
  }
  let text: string;
  try {
    text = await readCappedText(response, MAX_BYTES);
  } catch (err) {
    throw new AuthorizationError(`the response of ${url.origin}${url.pathname} could not be read: ${(err as Error).message}`, undefined, { cause: err });
  }
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: response.status, body, headers: response.headers };
}

/** A form POST (token and registration requests carry `application/x-www-form-urlencoded`, RFC 6749 §3.2). */
export function postForm(
  fetchFn: typeof fetch,
  url: URL,
  form: URLSearchParams,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<JsonResponse> {
  return requestJson(fetchFn, url, {
    method: 'POST',
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    signal,
  });
}

/** The OAuth error of a refusal, for a message: `error (description)`, printable and short. */
export function oauthErrorText(body: Record<string, unknown> | undefined, status: number): { code?: string; text: string } {
  const code = typeof body?.error === 'string' ? body.error.slice(0, 100) : undefined;
  const description = typeof body?.error_description === 'string' ? body.error_description : undefined;
  if (!code) return { text: `HTTP ${status}` };
  return { code, text: `${describe(code).slice(1, -1)}${description ? ` (${describe(description).slice(1, -1)})` : ''}` };
}
