/** Which operations of a document become tools; each list is matched case-insensitively except paths. */
export interface OpenApiFilter {
  /** HTTP methods (`GET`, `post`, …). */
  methods?: string[];
  /** Glob patterns over the path template as the document writes it (`/pet/*`, `/store/**`); `*` stays within a segment, `**` crosses them. */
  paths?: string[];
  /** Tags of the operation (any one matching). */
  tags?: string[];
  /** operationIds (or, for an operation without one, the tool name made from its method and path). */
  operations?: string[];
}

/** HTTP basic credentials. */
export interface BasicCredentials {
  username: string;
  password: string;
}

/** OAuth 2.0 client credentials (RFC 6749 §4.4): the token comes from the scheme's `tokenUrl`. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Scopes asked for; default: those the operation's security requirement names. */
  scopes?: string[];
}

export type SchemeCredentials = string | BasicCredentials | ClientCredentials;

/**
 * An HTTP API described by an OpenAPI 3.0 or 3.1 document, its operations served as tools.
 * String values may hold `${VAR}`, replaced from the environment (`options.env`).
 */
export interface OpenApiUpstream {
  /** The document: a file path (relative to `cwd`) or an http(s) URL; JSON or YAML. */
  openapi: string;
  /** Where requests go; every request URL must stay under its origin and path. */
  baseUrl?: string;
  /** Use the document's first `servers` entry when no `baseUrl` is set (default false). */
  useDocumentServers?: boolean;
  /** Headers sent with every request to the API (an API key, a tenant id). */
  headers?: Record<string, string>;
  /** By the name of the document's security scheme (components.securitySchemes): its secret. */
  credentials?: Record<string, SchemeCredentials>;
  include?: OpenApiFilter;
  exclude?: OpenApiFilter;
  /** Time for one call, the request and its whole response (default 30 s). */
  timeoutMs?: number;
  /** Most response bytes read after decompression (default 2 MiB); more is cut and said so. */
  maxResponseBytes?: number;
}

export interface OpenApiToolsOptions {
  /** Where a relative `openapi` path is read from. */
  cwd: string;
  /** For `${VAR}` in the upstream's strings (default process.env). */
  env?: Record<string, string | undefined>;
}

/** A start-up failure of an OpenAPI upstream: its message says what is wrong and where. */
export class OpenApiError extends Error {
  override readonly name = 'OpenApiError';
}

/** A JSON object as read from the document. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Sets an own, enumerable property whatever its name: a document's or a model's `__proto__`
 * is a name like any other, never the object's prototype.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
