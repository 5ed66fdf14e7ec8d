import { ResultTooLargeError, resultUri, type ResultStore, type StoredContent } from '../result-store.js';
import type { RedisConnection } from './connection.js';

export interface RedisResultStoreOptions {
  /** How long a stored result stays readable (default 10 minutes): the key's own expiry (SET … PX). */
  ttlMs?: number;
  /** Largest single result kept (default 32 MiB): a larger one is refused (its call gets an isError result), so no caller fills Redis with one value. */
  maxEntryBytes?: number;
}

/** What a key holds: the content and whose it is. */
interface Entry {
  uri: string;
  mimeType: string;
  text?: string;
  blob?: string;
  bytes: number;
  owner: string;
  expiresAt: number;
}

/** The URI's random part: the key's name (the label after it is checked against the stored URI). */
const URI = /^toolwright:\/\/results\/([0-9a-f-]{36})\//;

/**
 * Stored results in Redis, one key per result (`<prefix>result:<uuid>`) that
 * expires on its own: a `resource_link` made by one instance is read through
 * any other by the same caller (`owner`: callerKey, which holds the tenant),
 * and by no other caller. Keys hold the caller's key, never a credential.
 */
export class RedisResultStore implements ResultStore {
  readonly ttlMs: number;
  private readonly maxEntryBytes: number;

  constructor(
    private readonly redis: RedisConnection,
    options: RedisResultStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.maxEntryBytes = options.maxEntryBytes ?? 32 * 1024 * 1024;
    if (!(Number.isInteger(this.ttlMs) && this.ttlMs > 0)) throw new RangeError('the result store ttlMs must be a positive integer');
  }

  async put(content: { mimeType: string; text?: string; blob?: string }, owner: string | undefined, label: string): Promise<StoredContent> {
    const bytes = Buffer.byteLength(content.text ?? content.blob ?? '');
    if (bytes > this.maxEntryBytes) throw new ResultTooLargeError(bytes, this.maxEntryBytes);
    const uri = resultUri(label);
    const entry: Entry = {
      uri,
      mimeType: content.mimeType,
      ...(content.text !== undefined ? { text: content.text } : { blob: content.blob ?? '' }),
      bytes,
      owner: owner ?? '',
      expiresAt: Date.now() + this.ttlMs,
    };
    await this.redis.run((client) => client.set(this.keyOf(uri)!, JSON.stringify(entry), 'PX', this.ttlMs));
    return entry;
  }

  async get(uri: string, owner: string | undefined): Promise<StoredContent | undefined> {
    const key = this.keyOf(uri);
    if (key === undefined) return undefined;
    const json = await this.redis.run((client) => client.get(key));
    if (json === null) return undefined;
    const entry = JSON.parse(json) as Entry;
    // Another caller's result is "not found", as a missing one is: its existence is not told.
    if (entry.uri !== uri || entry.owner !== (owner ?? '') || entry.expiresAt <= Date.now()) return undefined;
    return entry;
  }

  private keyOf(uri: string): string | undefined {
    const id = URI.exec(uri)?.[1];
    return id === undefined ? undefined : this.redis.key(`result:${id}`);
  }
}
