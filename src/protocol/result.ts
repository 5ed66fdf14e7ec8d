import { META, type Implementation } from './meta.js';
import type { Era } from './versions.js';

/**
 * Era-specific result shapes. Modern results carry `resultType` and identify
 * the server in `_meta` (spec 2026-07-28 basic/index "Per-response protocol
 * fields"); legacy results are plain objects.
 */
export function shapeResult(era: Era, result: Record<string, unknown>, serverInfo: Implementation): Record<string, unknown> {
  if (era === 'legacy') return result;
  const meta = result._meta as Record<string, unknown> | undefined;
  return {
    resultType: 'complete',
    ...result,
    _meta: meta ? { ...meta, [META.serverInfo]: serverInfo } : { [META.serverInfo]: serverInfo },
  };
}

/** Cache hints every modern list and discover result must carry (caching.mdx). */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}
