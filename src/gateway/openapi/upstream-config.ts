import { HEADER_NAME_TOKEN } from '../../protocol/header-params.js';
import type { LoadedDocument } from './load-document.js';
import { isObject, OpenApiError, setOwn, type OpenApiFilter, type OpenApiUpstream, type SchemeCredentials } from './types.js';

const DEFAULT_TIMEOUT_MS = 30_000;
/** Headers the request itself decides (RFC 9110 §7.6.1 connection headers, framing, the target host). */
const OWNED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect']);
const DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/** An upstream with its `${VAR}`s replaced, its defaults filled and its fields checked. */
export interface ResolvedUpstream {
  openapi: string;
  baseUrl?: string;
  useDocumentServers: boolean;
  headers: Record<string, string>;
  credentials: Record<string, SchemeCredentials>;
  include?: OpenApiFilter;
  exclude?: OpenApiFilter;
  timeoutMs: number;
  maxResponseBytes: number;
}

type Env = Record<string, string | undefined>;

/** `${NAME}` replaced from `env`; an unset one is an error naming the field and the variable, never a value. */
function expand(value: string, field: string, env: Env): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    if (found === undefined || found === '') throw new OpenApiError(`${field}: \${${name}} is not set in the environment.`);
    return found;
  });
}

export function resolveUpstream(upstream: OpenApiUpstream, env: Env): ResolvedUpstream {
  if (!isObject(upstream) || typeof upstream.openapi !== 'string' || upstream.openapi === '') {
    throw new OpenApiError('An OpenAPI upstream needs "openapi": a file path or an http(s) URL of the document.');
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstream.headers ?? {})) {
    if (!HEADER_NAME_TOKEN.test(name) || typeof value !== 'string')
      throw new OpenApiError(`headers.${name.slice(0, 60)}: a header needs a valid name and a string value.`);
    if (OWNED_HEADERS.has(name.toLowerCase())) throw new OpenApiError(`headers.${name}: that header is set by the request itself and cannot be configured.`);
    const text = expand(value, `headers.${name}`, env);
    if (/[\r\n\0]/.test(text)) throw new OpenApiError(`headers.${name}: the value must not contain line breaks.`);
    setOwn(headers, name, text);
  }
  const credentials: Record<string, SchemeCredentials> = {};
  for (const [name, value] of Object.entries(upstream.credentials ?? {})) setOwn(credentials, name, expandCredentials(value, `credentials.${name}`, env));
  return {
    openapi: expand(upstream.openapi, 'openapi', env),
    baseUrl: upstream.baseUrl === undefined ? undefined : expand(upstream.baseUrl, 'baseUrl', env),
    useDocumentServers: upstream.useDocumentServers === true,
    headers,
    credentials,
    include: upstream.include,
    exclude: upstream.exclude,
    timeoutMs: positive(upstream.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS),
    maxResponseBytes: positive(upstream.maxResponseBytes, 'maxResponseBytes', DEFAULT_MAX_RESPONSE_BYTES),
  };
}

function expandCredentials(value: SchemeCredentials, field: string, env: Env): SchemeCredentials {
  if (typeof value === 'string') return expand(value, field, env);
  if (!isObject(value)) throw new OpenApiError(`${field}: give a string, { username, password } or { clientId, clientSecret, scopes }.`);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key, typeof item === 'string' ? expand(item, `${field}.${key}`, env) : item);
  return out as unknown as SchemeCredentials;
}

function positive(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw new OpenApiError(`${field} must be a positive integer.`);
  return value;
}

/**
 * Where requests go: `baseUrl` when set; the document's first `servers` entry (its variables
 * at their defaults, relative to the document's URL) only with `useDocumentServers`. A document
 * must not be able to send the gateway's credentials to a host of its choosing.
 */
export function baseUrlFor(config: ResolvedUpstream, loaded: LoadedDocument): URL {
  let raw = config.baseUrl;
  let relativeTo: URL | undefined;
  let field = 'baseUrl';
  if (raw === undefined) {
    if (!config.useDocumentServers) {
      throw new OpenApiError(`OpenAPI document ${config.openapi}: set "baseUrl" (the document's servers are used only with "useDocumentServers: true").`);
    }
    raw = firstServer(config, loaded);
    relativeTo = loaded.url;
    field = "the document's servers[0].url";
  }
  let url: URL;
  try {
    url = new URL(raw, relativeTo);
  } catch {
    throw new OpenApiError(
      `OpenAPI document ${config.openapi}: ${field} is not an absolute http(s) URL${relativeTo ? '' : ' (a relative server URL needs a document loaded from a URL)'}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OpenApiError(`${field} must be an http or https URL.`);
  if (url.username || url.password) throw new OpenApiError(`${field} must not carry credentials; use "headers" or "credentials".`);
  if (url.search || url.hash) throw new OpenApiError(`${field} must not have a query or a fragment.`);
  return url;
}

function firstServer(config: ResolvedUpstream, loaded: LoadedDocument): string {
  const servers = loaded.doc.servers;
  const first = Array.isArray(servers) ? servers[0] : undefined;
  if (!isObject(first) || typeof first.url !== 'string') throw new OpenApiError(`OpenAPI document ${config.openapi}: it lists no servers; set "baseUrl".`);
  const variables = isObject(first.variables) ? first.variables : {};
  return first.url.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const variable = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (!isObject(variable) || typeof variable.default !== 'string')
      throw new OpenApiError(`OpenAPI document ${config.openapi}: server variable {${name.slice(0, 40)}} has no default.`);
    return variable.default;
  });
}
