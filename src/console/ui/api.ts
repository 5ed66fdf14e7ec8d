/**
 * The page's only way out: the console's own API, with the per-run token in a header. The token
 * arrives in the URL's fragment (`#token=…`, never sent to any server), moves to sessionStorage
 * (so a reload keeps working) and leaves the address bar.
 */
import type { AnswerOf, BodyOf, ConsoleRoute, GetPath, PostPath, StreamEvent, StreamRoute } from '../api-types.js';

export type { StreamEvent };

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

type GetAnswer<P extends GetPath> = AnswerOf<Extract<`GET ${P}`, ConsoleRoute>>;
type PostRoute<P extends PostPath> = Extract<`POST ${P}`, ConsoleRoute>;
/** A POST's body, optional for a route that takes none. */
type PostArgs<P extends PostPath> =
  BodyOf<PostRoute<P>> extends Record<string, never> ? [body?: BodyOf<PostRoute<P>>, signal?: AbortSignal] : [body: BodyOf<PostRoute<P>>, signal?: AbortSignal];

/** A route's JSON answer (api-types.ts declares each); `query` is its query string, without the `?`. */
export async function apiGet<P extends GetPath>(path: P, query = '', signal?: AbortSignal): Promise<GetAnswer<P>> {
  return (await (await send(query ? `${path}?${query}` : path, { method: 'GET', signal })).json()) as GetAnswer<P>;
}

export async function apiPost<P extends PostPath>(path: P, ...[body = {}, signal]: PostArgs<P>): Promise<AnswerOf<PostRoute<P>>> {
  return (await (await send(path, { method: 'POST', body: JSON.stringify(body), signal })).json()) as AnswerOf<PostRoute<P>>;
}

/** The stream routes by path: a GET takes no body, a POST its route's. */
type StreamBodies = {
  [R in StreamRoute as R extends `${string} ${infer P}` ? P : never]: R extends `GET ${string}` ? undefined : BodyOf<R>;
};

/**
 * Reads a JSON-lines answer (POST with a body, or GET without), one event at a time, until
 * it ends or `signal` aborts.
 */
export async function apiStream<P extends keyof StreamBodies>(
  path: P,
  body: StreamBodies[P],
  onEvent: (event: StreamEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
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
