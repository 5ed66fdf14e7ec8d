import type { MessagePort } from 'node:worker_threads';
import type { PruneResult, ResolvedRetention } from './retention.js';

/** What the audit writer thread is started with (its workerData). */
export interface WriterInit {
  file: string;
  synchronous: 'normal' | 'full';
  busyTimeoutMs: number;
  nativeBinding?: string;
  retention?: ResolvedRetention;
  /** The writer's end of the channel (the sink keeps the other, to read it synchronously on close). */
  port: MessagePort;
  /** STATE_SLOTS Int32 slots, indexed by CLOSED and ACKNOWLEDGED. */
  state: SharedArrayBuffer;
}

/** Becomes 1 once the writer has committed what it holds and closed the file after a close request. */
export const CLOSED = 0;
/** How many batches (since the start) the writer has handled: committed, or failed and said so by a message first. */
export const ACKNOWLEDGED = 1;
export const STATE_SLOTS = 2;

/**
 * Sink → writer. A batch is its rows' values, flat (COLUMN_COUNT per row), a plain array of
 * strings, numbers and nulls: the cheapest shape to copy between threads.
 */
export type WriterRequest = unknown[] | { prune: number } | { close: true };

/**
 * Writer → sink, besides the ACKNOWLEDGED count. Batches are handled in the order they were
 * posted; those up to `failedUpTo` not yet acknowledged failed with `message`.
 */
export type WriterReply =
  | { failedUpTo: number; message: string }
  | { pruned: number; result: PruneResult }
  | { pruneFailed: number; message: string }
  | { retentionError: string };
