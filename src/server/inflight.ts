import type { RequestId } from '../jsonrpc/types.js';

/** A request that `notifications/cancelled` or a lost connection can stop. */
export interface Abortable {
  abort(reason?: unknown): void;
}

/**
 * The requests in flight on one connection, by id.
 *
 * Two parallel arrays with swap-remove, not a Map: a connection lives long
 * and every call adds and removes an entry. A Map with that churn keeps
 * rehashing, and V8 links each retired table to its successor (for live
 * iterators), so retired tables and the calls they held survived young
 * collections and were promoted: under window-16 load on stdio the heap's
 * young generation grew to its maximum and old space to 20 MiB (peak RSS
 * 113 MiB; 88 MiB with the Map gone, and ~20% more calls per second).
 * In-flight counts are bounded by the concurrency limit and its queue, and
 * lookups by id happen only on cancellation, so a linear scan is cheap.
 */
export class InflightRequests {
  private readonly ids: RequestId[] = [];
  private readonly entries: Abortable[] = [];

  get size(): number {
    return this.entries.length;
  }

  add(id: RequestId, entry: Abortable): void {
    this.ids.push(id);
    this.entries.push(entry);
  }

  /** The request in flight under this id (the first one, should a client reuse an id). */
  get(id: RequestId): Abortable | undefined {
    const i = this.ids.indexOf(id);
    return i === -1 ? undefined : this.entries[i];
  }

  /** Removes this entry (not another request that reused its id). */
  remove(entry: Abortable): void {
    const i = this.entries.lastIndexOf(entry);
    if (i === -1) return;
    const last = this.entries.length - 1;
    if (i !== last) {
      this.ids[i] = this.ids[last];
      this.entries[i] = this.entries[last];
    }
    this.ids.pop();
    this.entries.pop();
  }

  /** Aborts everything in flight and forgets it (the connection is gone). */
  abortAll(reason: unknown): void {
    const entries = this.entries.splice(0);
    this.ids.length = 0;
    for (const entry of entries) entry.abort(reason);
  }
}
