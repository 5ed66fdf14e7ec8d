import { callerKey } from '../policy/auth/caller.js';
import type { MiddlewareContext, ToolCallMiddlewareContext, AnyMiddleware } from '../server/middleware.js';

export interface ResponseCacheOptions {
  /** How long an answer is served from the cache (default 30,000 ms). */
  ttlMs?: number;
  /** Answers kept at most; the least recently used goes first (default 1,000). */
  maxEntries?: number;
  /** List methods cached besides read-only tool calls (default: tools/list, prompts/list, resources/list, resources/templates/list). */
  lists?: readonly string[];
  /** Requests whose key (params as canonical JSON) is longer are not cached (default 64 KiB). */
  maxKeyChars?: number;
}

const DEFAULT_LISTS = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];

interface Entry {
  result: Record<string, unknown>;
  expiresAt: number;
}

/**
 * Response caching for read-only tools (`annotations.readOnlyHint: true`)
 * and lists: an answer is served again to the same caller, for the same
 * method and params, until its TTL ends; at most `maxEntries`, least
 * recently used first out.
 *
 * - Keyed by the caller (principal and scopes), era, method and the params
 *   as canonical JSON (`_meta` left out): never served to another caller. A
 *   request without a principal is cached only on stdio (one client per
 *   process); over HTTP an anonymous caller may be anyone, so it is not.
 * - Never caches an isError result, a request for input, or a cancelled call.
 * - Cached results are frozen copies: treat results as read-only.
 *
 *   server.use(responseCache({ ttlMs: 10_000 }));
 *
 * A hit answers without running the rest of the pipeline: for tools/call
 * that is after authorization, rate limit and validation (docs/middleware.md).
 */
export function responseCache(options: ResponseCacheOptions = {}): AnyMiddleware & { readonly size: number; clear(): void } {
  const ttlMs = options.ttlMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 1_000;
  const maxKeyChars = options.maxKeyChars ?? 64 * 1024;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('responseCache: ttlMs must be a positive number');
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('responseCache: maxEntries must be a positive integer');
  const lists = new Set(options.lists ?? DEFAULT_LISTS);
  const entries = new Map<string, Entry>();

  const middleware = async (ctx: MiddlewareContext, next: () => Promise<Record<string, unknown> | undefined>) => {
    const key = cacheable(ctx, lists) ? keyOf(ctx, maxKeyChars) : undefined;
    if (key === undefined) return next();
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && hit.expiresAt > now) {
      // Most recently used: to the end of the Map's order.
      entries.delete(key);
      entries.set(key, hit);
      return hit.result;
    }
    if (hit) entries.delete(key);
    const result = await next();
    if (result === undefined || result.isError === true || result.resultType === 'input_required') return result;
    entries.set(key, { result: frozenCopy(result), expiresAt: Date.now() + ttlMs });
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    return result;
  };
  // defineProperties, not Object.assign: assign would copy the getter's value once.
  return Object.defineProperties(middleware, {
    size: { get: () => entries.size },
    clear: { value: () => entries.clear() },
  }) as typeof middleware & { readonly size: number; clear(): void };
}

function cacheable(ctx: MiddlewareContext, lists: ReadonlySet<string>): boolean {
  if (ctx.caller.method === 'anonymous' && ctx.transport !== 'stdio') return false;
  if (ctx.method === 'tools/call') return (ctx as ToolCallMiddlewareContext).tool?.annotations?.readOnlyHint === true;
  return lists.has(ctx.method);
}

/** The caller, era, method and canonical params; undefined when too long to be worth keeping. */
function keyOf(ctx: MiddlewareContext, maxChars: number): string | undefined {
  const scopes = ctx.caller.scopes ? [...ctx.caller.scopes].sort() : null;
  const { _meta: _ignored, ...params } = (ctx.params ?? {}) as Record<string, unknown>;
  // callerKey: the same id in two tenants is two callers.
  const key = JSON.stringify([callerKey(ctx.caller), scopes, ctx.era, ctx.method, canonical(params)]);
  return key.length > maxChars ? undefined : key;
}

/** The value with object keys sorted, so equal params give equal keys whatever their order. */
function canonical(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => canonical(v, depth + 1));
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = canonical((value as Record<string, unknown>)[key], depth + 1);
  return sorted;
}

function frozenCopy(result: Record<string, unknown>): Record<string, unknown> {
  return deepFreeze(structuredClone(result));
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const member of Object.values(value as object)) deepFreeze(member);
  return value;
}
