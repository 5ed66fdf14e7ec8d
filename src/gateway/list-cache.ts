import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ListedPrompt, ListedResource, ListedResourceTemplate } from '../client/server-surface.js';
import type { UpstreamToolShape } from './transform.js';

/** What one upstream listed last, as it listed it. */
export interface CachedLists {
  tools?: UpstreamToolShape[];
  prompts?: ListedPrompt[];
  resources?: ListedResource[];
  templates?: ListedResourceTemplate[];
}

/** Larger than this, a listing is not written (nor read back): the cache is a convenience, not a store. */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;
const KINDS = ['tools', 'prompts', 'resources', 'templates'] as const;

/**
 * An upstream's lists on disk, so that after a restart its entries are served from the last
 * listing until it answers (a slow upstream does not leave clients with nothing); rewritten
 * after every listing (list_changed included). The file is the gateway's own (mode 0600, in a
 * 0700 folder), but read as untrusted as the upstream: only arrays of objects are taken, and
 * the entries go through the same checks as a live listing's.
 */
export class ListCache {
  private lists: CachedLists = {};
  private writing = false;

  constructor(
    readonly file: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** The last listing, or undefined when there is none (or it cannot be read). */
  read(): CachedLists | undefined {
    let value: unknown;
    try {
      if (statSync(this.file).size > MAX_CACHE_BYTES) return undefined;
      value = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.warn('its cached lists could not be read; waiting for it to answer');
      return undefined;
    }
    if (typeof value !== 'object' || value === null) return undefined;
    const lists: CachedLists = {};
    for (const kind of KINDS) {
      const list = (value as Record<string, unknown>)[kind];
      if (Array.isArray(list) && list.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e))) (lists as Record<string, unknown>)[kind] = list;
    }
    this.lists = lists;
    return lists;
  }

  /** A fresh listing of one kind: written (with the others' last) at the end of this turn. */
  update<K extends keyof CachedLists>(kind: K, list: CachedLists[K]): void {
    this.lists[kind] = list;
    if (this.writing) return;
    this.writing = true;
    setImmediate(() => {
      this.writing = false;
      this.write();
    });
  }

  private write(): void {
    try {
      const text = JSON.stringify(this.lists);
      if (text.length > MAX_CACHE_BYTES) return;
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      // Written whole, then renamed over: a crash never leaves half a file to be read back.
      const temporary = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temporary, text, { mode: 0o600 });
      renameSync(temporary, this.file);
    } catch (err) {
      this.warn(`its lists could not be cached: ${(err as Error).message.split('\n')[0].slice(0, 200)}`);
    }
  }
}
