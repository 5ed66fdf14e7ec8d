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
      const value = key === 'structuredContent' && structuredJson !== undefined ? structuredJson : jsonOfMember(result[key]);
      if (value !== undefined) members += `${members ? ',' : ''}${quoted(key)}:${value}`; // as JSON.stringify skips undefined members
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

/** Longest string quoted by quoted()'s own scan; a longer one is left to JSON.stringify, which scans faster. */
const MAX_SCANNED_CHARS = 256;

/**
 * `text` as JSON.stringify writes it: quoted at once when it holds no
 * character JSON escapes (a result's member names, short values like a
 * prompt's description or a cache scope). Each JSON.stringify call sets up a
 * builder of its own (a few hundred instructions for a short string: a third
 * of a prompts/get result's encoding was spent so).
 */
function quoted(text: string): string {
  if (text.length > MAX_SCANNED_CHARS) return JSON.stringify(text);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Control characters, `"` and `\` are escaped; a surrogate may be a lone one, which JSON.stringify writes as \uXXXX.
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** A result member's JSON text, as JSON.stringify writes it (undefined: a member it skips); strings and finite numbers without its call. */
function jsonOfMember(value: unknown): string | undefined {
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}
