/**
 * The page's only way out: the console's own API, with the per-run token in a header. The token
 * arrives in the URL's fragment (`#token=…`, never sent to any server), moves to sessionStorage
 * (so a reload keeps working) and leaves the address bar.
 */
const TOKEN_KEY = 'toolwright-console-token';

function takeToken(): string {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, match[1]);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

const token = takeToken();

export function hasToken(): boolean {
  return token !== '';
}

/** A refusal or failure of the console's API, with its message for the person at the page. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function apiUrl(path: string): string {
  return new URL(`api/${path}`, document.baseURI).href;
}

async function send(path: string, init: RequestInit): Promise<Response> {
  const res = await fetch(apiUrl(path), {
    ...init,
    headers: { 'X-Console-Token': token, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    credentials: 'same-origin',
  });
  if (!res.ok) {
    let message = `the console answered HTTP ${res.status}`;
    let details: Record<string, unknown> = {};
    try {
      const body = (await res.json()) as { error?: { message?: string } & Record<string, unknown> };
      if (body.error?.message) message = body.error.message;
      details = body.error ?? {};
    } catch {
      // Not JSON: keep the status line.
    }
    throw new ApiFailure(res.status, message, details);
  }
  return res;
}

export async function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await (await send(path, { method: 'GET', signal })).json()) as T;
}

export async function apiPost<T>(path: string, body: unknown = {}, signal?: AbortSignal): Promise<T> {
  return (await (await send(path, { method: 'POST', body: JSON.stringify(body), signal })).json()) as T;
}

/** An event of a JSON-lines stream (a call's life, the connection's events). */
export type StreamEvent = { type: string } & Record<string, unknown>;

/**
 * Reads a JSON-lines answer (POST with a body, or GET without), one event at a time, until
 * it ends or `signal` aborts.
 */
export async function apiStream(path: string, body: unknown | undefined, onEvent: (event: StreamEvent) => void, signal?: AbortSignal): Promise<void> {
  const res = await send(path, body === undefined ? { method: 'GET', signal } : { method: 'POST', body: JSON.stringify(body), signal });
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) onEvent(JSON.parse(line) as StreamEvent);
    }
  }
}
