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
 * The JSON text of a result's `structuredContent`, set where the pipeline has serialized it
 * already (to measure the result): the encoder writes that text instead of serializing the
 * value again (a call with a 9 KiB structured result took a third fewer instructions). A symbol
 * key: JSON.stringify and Object.keys skip it, so it never reaches the wire. Only set on a
 * result object made for this one call (a handler may return the same object twice).
 */
export const STRUCTURED_JSON = Symbol('structuredContent as JSON');
export interface StructuredJson {
  [STRUCTURED_JSON]?: string;
}

/**
 * Serializes results for an era. A modern result without its own `_meta` or `resultType`
 * (the common case), and any result carrying its structured JSON, is written member by
 * member: modern members go between `resultType` and the pre-serialized server identity,
 * instead of being copied into a new object first.
 * (Slicing the braces off the serialized result would do too, but V8 builds a large JSON
 * text in pieces and slicing joins them: one more copy of a 1 MiB result, ~1 ms.)
 */
export class ResultEncoder {
  private readonly metaJson: string;

  constructor(private readonly serverInfo: Implementation) {
    this.metaJson = JSON.stringify({ [META.serverInfo]: serverInfo });
  }

  encode(era: Era, result: Record<string, unknown> & StructuredJson): string {
    const structuredJson = result[STRUCTURED_JSON];
    if (era === 'legacy' && structuredJson === undefined) return JSON.stringify(result);
    if (era === 'modern' && (result._meta !== undefined || result.resultType !== undefined)) return JSON.stringify(shapeResult(era, result, this.serverInfo));
    let members = '';
    for (const key of Object.keys(result)) {
      const value = key === 'structuredContent' && structuredJson !== undefined ? structuredJson : JSON.stringify(result[key]);
      if (value !== undefined) members += `${members ? ',' : ''}${JSON.stringify(key)}:${value}`; // as JSON.stringify skips undefined members
    }
    return this.wrap(era, members);
  }

  /** A result whose members are already JSON text (`"tools":[…],"ttlMs":0`), shaped for the era. */
  wrap(era: Era, membersJson: string): string {
    if (era === 'legacy') return `{${membersJson}}`;
    return `{"resultType":"complete",${membersJson ? `${membersJson},` : ''}"_meta":${this.metaJson}}`;
  }
}

/** Cache hints every modern list and discover result must carry (caching.mdx). */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}
