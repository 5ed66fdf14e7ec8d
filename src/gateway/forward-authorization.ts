import { AsyncLocalStorage } from 'node:async_hooks';
import type { HttpSend } from '../client/transports/http-send.js';
import type { ToolServer } from '../server/server.js';

/** The calling client's Authorization header, for the duration of its call (only for upstreams that forward it). */
const callerAuthorization = new AsyncLocalStorage<string>();
const installed = new WeakSet<ToolServer>();

/**
 * Makes the client's `Authorization` header available to the calls of upstreams that forward it
 * (`forwardAuthorization: true`): public middleware reads the header the HTTP transport saw
 * and runs the rest of the call inside its async context. Installed once per server, and only
 * when an upstream asks: a gateway that forwards nothing never touches the header.
 */
export function captureAuthorization(server: ToolServer): void {
  if (installed.has(server)) return;
  installed.add(server);
  server.use('tools/call', (ctx, next) => {
    const header = ctx.headers?.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    return value ? callerAuthorization.run(value, next) : next();
  });
}

/** A fetch that adds the current call's Authorization header, when there is one (an HTTP upstream that forwards it). */
export function forwardingFetch(base: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const authorization = callerAuthorization.getStore();
    if (!authorization) return base(input, init);
    const headers = new Headers(init?.headers);
    headers.set('authorization', authorization);
    return base(input, { ...init, headers });
  };
}

/** The same for the gateway's own sender (node-send.ts): the current call's Authorization header, when there is one. */
export function forwardingSend(base: HttpSend): HttpSend {
  return (url, init) => {
    const authorization = callerAuthorization.getStore();
    return base(url, authorization ? { ...init, headers: { ...init.headers, authorization } } : init);
  };
}
