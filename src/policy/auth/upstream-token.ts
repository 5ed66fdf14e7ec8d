import type { Caller } from './caller.js';

type UpstreamTokenSource = (caller: Caller) => Promise<string>;

/** By issuer: the authorization-server facades of this process (one per server that has one). */
const sources = new Map<string, UpstreamTokenSource>();

/** Called by a facade when it is built; the returned function unregisters it. */
export function registerUpstreamTokens(issuer: string, source: UpstreamTokenSource): () => void {
  sources.set(issuer, source);
  return () => {
    if (sources.get(issuer) === source) sources.delete(issuer);
  };
}

/**
 * The identity provider's access token for the caller of a request, when the caller signed in
 * through toolwright's authorization-server facade (`server.auth.proxy`): for a tool that calls
 * the provider's API as the user (`await upstreamToken(ctx.caller)`). The facade refreshes it
 * when it is about to end. Throws when the caller did not sign in that way or the sign-in was
 * revoked; a tool should turn that into an isError result asking the user to sign in again.
 * The token is the user's: never return it in a result, log it or put it in an error.
 */
export function upstreamToken(caller: Caller): Promise<string> {
  const source = typeof caller.claims.iss === 'string' ? sources.get(caller.claims.iss) : undefined;
  if (!source) return Promise.reject(new Error('this caller did not sign in through an identity provider of this server (server.auth.proxy)'));
  return source(caller);
}
