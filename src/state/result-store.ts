import { nodeCrypto } from '../runtime/lazy-crypto.js';

/** One stored piece of a large result, served by `resources/read`. */
export interface StoredContent {
  uri: string;
  mimeType: string;
  text?: string;
  blob?: string;
  bytes: number;
  /** Only this caller may read it back: its `callerKey` ('' for the anonymous caller). */
  owner: string;
  expiresAt: number;
}

export interface ResultStoreOptions {
  /** How long a stored result stays readable (default 10 minutes). */
  ttlMs?: number;
  /** Total bytes kept at most; the oldest entries go first (default 256 MiB). */
  maxBytes?: number;
}

/**
 * Where results too large to send inline are kept: the content is stored
 * for a while and the result carries a `resource_link` to it (tools.mdx
 * "Resource Links"), so the client fetches it on demand with
 * `resources/read`. Async, so that it can live outside the process (Redis,
 * for several instances: redis/result-store.ts); MemoryResultStore is the default.
 * Either method may reject when the store cannot be reached: the call is
 * then answered with an error, never with a link to nothing.
 */
export interface ResultStore {
  /** How long a stored result stays readable. */
  readonly ttlMs: number;
  /** Keeps `content` for `owner` (`callerKey(caller)`; undefined: the anonymous caller); `label` ends the URI. */
  put(content: { mimeType: string; text?: string; blob?: string }, owner: string | undefined, label: string): Promise<StoredContent>;
  /** The stored content if it exists, has not expired, and belongs to `owner` (`callerKey(caller)`; undefined: the anonymous caller). */
  get(uri: string, owner: string | undefined): Promise<StoredContent | undefined>;
}

/** A store's refusal of one result too large for it (its message is meant for the caller). */
export class ResultTooLargeError extends Error {
  constructor(bytes: number, maxBytes: number) {
    super(`it is ${bytes} bytes, over the ${maxBytes}-byte bound of one stored result`);
    this.name = 'ResultTooLargeError';
  }
}

/** A new result URI: unguessable (a random UUID), ending in the label. */
export function resultUri(label: string): string {
  return `toolwright://results/${nodeCrypto().randomUUID()}/${encodeURIComponent(label)}`;
}

/** The default ResultStore: in this process's memory, bounded in bytes (the oldest go first). */
export class MemoryResultStore implements ResultStore {
  private readonly entries = new Map<string, StoredContent>();
  private totalBytes = 0;
  readonly ttlMs: number;
  private readonly maxBytes: number;

  constructor(options: ResultStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  }

  /** Keeps `content` for `owner` (`callerKey(caller)`; undefined: the anonymous caller). */
  put(content: { mimeType: string; text?: string; blob?: string }, owner: string | undefined, label: string): Promise<StoredContent> {
    return Promise.resolve(this.putNow(content, owner, label));
  }

  get(uri: string, owner: string | undefined): Promise<StoredContent | undefined> {
    return Promise.resolve(this.getNow(uri, owner));
  }

  /** `put`, synchronously. */
  putNow(content: { mimeType: string; text?: string; blob?: string }, owner: string | undefined, label: string): StoredContent {
    this.sweep();
    const bytes = Buffer.byteLength(content.text ?? content.blob ?? '');
    const entry: StoredContent = {
      uri: resultUri(label),
      ...content,
      bytes,
      owner: owner ?? '',
      expiresAt: Date.now() + this.ttlMs,
    };
    this.entries.set(entry.uri, entry);
    this.totalBytes += bytes;
    // Insertion order is age order: evict the oldest until we fit again.
    for (const [uri, old] of this.entries) {
      if (this.totalBytes <= this.maxBytes || uri === entry.uri) break;
      this.delete(uri, old);
    }
    return entry;
  }

  /** `get`, synchronously. */
  getNow(uri: string, owner: string | undefined): StoredContent | undefined {
    const entry = this.entries.get(uri);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.delete(uri, entry);
      return undefined;
    }
    return entry.owner === (owner ?? '') ? entry : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = Date.now();
    // Every entry lives ttlMs, so insertion order is expiry order: stop at the first one still valid.
    for (const [uri, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.delete(uri, entry);
    }
  }

  private delete(uri: string, entry: StoredContent): void {
    this.entries.delete(uri);
    this.totalBytes -= entry.bytes;
  }
}
