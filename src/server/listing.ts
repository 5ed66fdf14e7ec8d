import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { decodeCursor, encodeCursor } from '../protocol/cursor.js';
import type { CacheHints, ResultEncoder } from '../protocol/result.js';
import type { Era } from '../protocol/versions.js';
import { parsedWithJson } from './serialized.js';

/** What a listing is built from: items with their serialized wire definitions, and a version that changes with them. */
export interface ListSource<T extends { readonly wireJson: string }> {
  readonly version: number;
  list(): readonly T[];
}

/**
 * Serves list pages (`tools/list`, `prompts/list`, `resources/list`, …) from
 * pre-serialized JSON. Pages are built on first request and kept until the
 * source changes, so a page costs the same however many items there are.
 */
export class PagedListing<T extends { readonly wireJson: string }> {
  /** Each page's JSON, and its result object once one was asked for (parsed once, frozen, the JSON kept for the edge). */
  private pages = new Map<string, { json: string; result?: Record<string, unknown> }>();
  private builtFor = -1;

  constructor(
    private readonly registry: ListSource<T>,
    /** The result member that holds the items (`tools`, `prompts`, `resources`, `resourceTemplates`). */
    private readonly key: string,
    private readonly pageSize: number,
    private readonly cache: CacheHints,
    private readonly results: ResultEncoder,
  ) {
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError('pageSize must be a positive integer');
  }

  /**
   * The result object of the page at `cursor`, carrying its JSON text
   * (serialized.ts): the edge writes that text; a middleware may read the
   * object (frozen: one that changes it changes a copy).
   */
  page(era: Era, cursor: unknown): Record<string, unknown> {
    const entry = this.entry(era, cursor);
    return (entry.result ??= parsedWithJson(entry.json));
  }

  /** The result JSON for the page at `cursor` (throws -32602 for a cursor we did not mint). */
  pageJson(era: Era, cursor: unknown): string {
    return this.entry(era, cursor).json;
  }

  private entry(era: Era, cursor: unknown): { json: string; result?: Record<string, unknown> } {
    if (this.builtFor !== this.registry.version) {
      this.pages.clear();
      this.builtFor = this.registry.version;
    }
    const offset = cursor === undefined ? 0 : this.offsetOf(cursor);
    const key = `${era}:${offset}`;
    let entry = this.pages.get(key);
    if (entry === undefined) {
      entry = { json: this.build(era, offset) };
      this.pages.set(key, entry);
    }
    return entry;
  }

  /**
   * Only page boundaries are valid, and a cursor past the end (the list shrank
   * since it was minted) means the empty last page: the page cache stays bounded.
   */
  private offsetOf(cursor: unknown): number {
    const offset = decodeCursor(cursor);
    if (offset % this.pageSize !== 0) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: invalid cursor; restart listing without a cursor');
    return Math.min(offset, this.registry.list().length);
  }

  private build(era: Era, offset: number): string {
    const items = this.registry.list();
    const page = items.slice(offset, offset + this.pageSize);
    const next = offset + this.pageSize < items.length ? `,"nextCursor":${JSON.stringify(encodeCursor(offset + this.pageSize))}` : '';
    const list = `${JSON.stringify(this.key)}:[${page.map((t) => t.wireJson).join(',')}]`;
    const hints = era === 'modern' ? `,"ttlMs":${this.cache.ttlMs},"cacheScope":${JSON.stringify(this.cache.cacheScope)}` : '';
    return this.results.wrap(era, `${list}${next}${hints}`);
  }
}
