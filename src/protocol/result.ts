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

/**
 * Serializes results for an era. The common modern case (a result without its
 * own `_meta` or `resultType`) splices the pre-serialized server identity into
 * the result's JSON instead of copying the result into a new object first.
 */
export class ResultEncoder {
  private readonly metaJson: string;

  constructor(private readonly serverInfo: Implementation) {
    this.metaJson = JSON.stringify({ [META.serverInfo]: serverInfo });
  }

  encode(era: Era, result: Record<string, unknown>): string {
    if (era === 'legacy') return JSON.stringify(result);
    if (result._meta !== undefined || result.resultType !== undefined) return JSON.stringify(shapeResult(era, result, this.serverInfo));
    const body = JSON.stringify(result);
    return body.length === 2 ? `{"resultType":"complete","_meta":${this.metaJson}}` : `{"resultType":"complete",${body.slice(1, -1)},"_meta":${this.metaJson}}`;
  }
}

/** Cache hints every modern list and discover result must carry (caching.mdx). */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}
