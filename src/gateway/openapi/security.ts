import { ClientCredentialsToken } from './oauth.js';
import type { SecurityRequirement } from './plan.js';
import type { LocalRefs } from './refs.js';
import { isObject, OpenApiError, setOwn, type ClientCredentials, type JsonObject, type SchemeCredentials } from './types.js';

/** What one call adds to its request for authentication. */
export interface AuthParts {
  headers: Record<string, string>;
  query: Array<[string, string]>;
  cookies: string[];
}

/** One scheme of a chosen requirement, ready to apply. */
export type AppliedScheme =
  | { kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; value: string }
  | { kind: 'header'; value: string }
  | { kind: 'oauth'; token: ClientCredentialsToken };

export interface SecurityContext {
  schemes: JsonObject;
  credentials: Record<string, SchemeCredentials>;
  refs: LocalRefs;
  /** Token URLs resolve against this (the document's URL, else the base URL). */
  base: URL;
  timeoutMs: number;
  /** Scheme names referenced without credentials configured (one start-up note each). */
  missing: Set<string>;
  unsupported: Map<string, string>;
  tokens: Map<string, ClientCredentialsToken>;
}

/**
 * The first alternative of an operation's `security` whose every scheme has credentials
 * configured (OpenAPI 3 §4.8.30: the list is alternatives, each object's schemes all apply).
 * None: the request goes without credentials, and the API answers for itself.
 */
export function chooseSecurity(requirements: SecurityRequirement[], ctx: SecurityContext): AppliedScheme[] {
  for (const requirement of requirements) {
    const names = Object.keys(requirement);
    if (names.length === 0) return []; // `{}`: anonymous access is one of the alternatives
    const applied = names.map((name) => applyScheme(name, requirement[name], ctx));
    if (applied.every((scheme) => scheme !== undefined)) return applied as AppliedScheme[];
  }
  return [];
}

function applyScheme(name: string, scopes: string[], ctx: SecurityContext): AppliedScheme | undefined {
  const scheme = Object.hasOwn(ctx.schemes, name) ? ctx.refs.follow(ctx.schemes[name]) : undefined;
  if (!isObject(scheme)) {
    ctx.unsupported.set(name, 'is not defined in components.securitySchemes');
    return undefined;
  }
  const given = Object.hasOwn(ctx.credentials, name) ? ctx.credentials[name] : undefined;
  if (given === undefined) {
    ctx.missing.add(name);
    return undefined;
  }
  const type = scheme.type;
  if (type === 'apiKey') return apiKey(name, scheme, given);
  if (type === 'http' && typeof scheme.scheme === 'string') return httpScheme(name, scheme.scheme.toLowerCase(), given, ctx);
  if (type === 'oauth2') return oauth(name, scheme, given, scopes, ctx);
  ctx.unsupported.set(
    name,
    `is of type ${JSON.stringify(String(type)).slice(0, 40)}, which is not supported (apiKey, http bearer and basic, oauth2 client credentials are)`,
  );
  return undefined;
}

function secretString(name: string, given: SchemeCredentials): string {
  if (typeof given !== 'string' || given === '') throw new OpenApiError(`credentials.${name} must be a non-empty string for that security scheme.`);
  return given;
}

function apiKey(name: string, scheme: JsonObject, given: SchemeCredentials): AppliedScheme {
  const where = scheme.in;
  if ((where !== 'header' && where !== 'query' && where !== 'cookie') || typeof scheme.name !== 'string' || scheme.name === '') {
    throw new OpenApiError(`security scheme ${JSON.stringify(name)}: an apiKey scheme needs "name" and "in" (header, query or cookie).`);
  }
  return { kind: 'apiKey', in: where, name: scheme.name, value: secretString(name, given) };
}

function httpScheme(name: string, kind: string, given: SchemeCredentials, ctx: SecurityContext): AppliedScheme | undefined {
  if (kind === 'bearer') return { kind: 'header', value: `Bearer ${secretString(name, given)}` };
  if (kind === 'basic') {
    const pair = typeof given === 'string' ? given : isObject(given) && 'username' in given ? `${given.username}:${given.password}` : undefined;
    if (
      pair === undefined ||
      (typeof given === 'object' &&
        (typeof (given as { username: unknown }).username !== 'string' || typeof (given as { password: unknown }).password !== 'string'))
    ) {
      throw new OpenApiError(`credentials.${name} must be { username, password } (or "user:password") for that basic scheme.`);
    }
    return { kind: 'header', value: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
  }
  ctx.unsupported.set(name, `uses HTTP scheme ${JSON.stringify(kind.slice(0, 30))}; only bearer and basic are supported`);
  return undefined;
}

function oauth(name: string, scheme: JsonObject, given: SchemeCredentials, scopes: string[], ctx: SecurityContext): AppliedScheme | undefined {
  const flow = isObject(scheme.flows) ? scheme.flows.clientCredentials : undefined;
  if (!isObject(flow) || typeof flow.tokenUrl !== 'string') {
    ctx.unsupported.set(name, 'is an oauth2 scheme without a clientCredentials flow; only client credentials are supported');
    return undefined;
  }
  const creds = given as ClientCredentials;
  if (!isObject(given) || typeof creds.clientId !== 'string' || typeof creds.clientSecret !== 'string') {
    throw new OpenApiError(`credentials.${name} must be { clientId, clientSecret, scopes? } for that oauth2 scheme.`);
  }
  const wanted = creds.scopes ?? scopes;
  const key = `${name}\n${[...wanted].sort().join(' ')}`;
  let token = ctx.tokens.get(key);
  if (!token) {
    token = new ClientCredentialsToken(name, tokenUrl(name, flow.tokenUrl, ctx.base), creds, wanted, ctx.timeoutMs);
    ctx.tokens.set(key, token);
  }
  return { kind: 'oauth', token };
}

/** RFC 6749 §3.2: the token endpoint MUST use TLS; plain http only for this machine (tests, a local issuer). */
function tokenUrl(name: string, raw: string, base: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new OpenApiError(`security scheme ${JSON.stringify(name)}: tokenUrl is not a valid URL.`);
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new OpenApiError(`security scheme ${JSON.stringify(name)}: tokenUrl must be https (plain http only on this machine).`);
  }
  if (url.username || url.password) throw new OpenApiError(`security scheme ${JSON.stringify(name)}: tokenUrl must not carry credentials.`);
  return url;
}

/** The credentials of one call, the OAuth token fetched (or reused) as needed. */
export async function authParts(schemes: AppliedScheme[], signal: AbortSignal): Promise<AuthParts> {
  const parts: AuthParts = { headers: {}, query: [], cookies: [] };
  for (const scheme of schemes) {
    if (scheme.kind === 'header') parts.headers.authorization = scheme.value;
    else if (scheme.kind === 'oauth') parts.headers.authorization = `Bearer ${await scheme.token.get(signal)}`;
    else if (scheme.in === 'header') setOwn(parts.headers, scheme.name.toLowerCase(), scheme.value);
    else if (scheme.in === 'query') parts.query.push([scheme.name, scheme.value]);
    else parts.cookies.push(`${scheme.name}=${encodeURIComponent(scheme.value)}`);
  }
  return parts;
}
