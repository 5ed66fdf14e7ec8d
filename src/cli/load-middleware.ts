import type { MiddlewareModule } from '../server/middleware.js';
import { UsageError } from './errors.js';
import { importUserModule } from './load-tools.js';

/**
 * Loads a config file's `middleware` module: its default export (or a
 * `middleware` export) is a middleware `(ctx, next) => result`, or
 * `{ method, middleware }` for one method. TypeScript loads as tools modules do.
 */
export async function loadMiddlewareModule(spec: string): Promise<MiddlewareModule> {
  const mod = await importUserModule(spec, 'middleware', 'middleware');
  // Interop may wrap the default export once more (CommonJS compiled modules).
  const candidates = [mod.default, (mod.default as Record<string, unknown> | undefined)?.default, mod.middleware];
  const found = candidates.find((c) => typeof c === 'function' || isEntry(c));
  if (!found) throw new UsageError(`${spec} must export a middleware (export default (ctx, next) => next()) or { method, middleware }`);
  return found as MiddlewareModule;
}

function isEntry(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { method, middleware } = value as { method?: unknown; middleware?: unknown };
  return typeof method === 'string' && method !== '' && typeof middleware === 'function';
}
