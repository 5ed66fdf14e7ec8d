/**
 * Durable task state behind a small interface (docs/architecture.md#state-behind-small-interfaces): the embedded SQLite store is the default; a shared store
 * (Redis, PostgreSQL) implements the same methods for several instances.
 *
 * Every read is by task id AND owner: one principal's task is invisible to
 * every other (the unknown-task error, the same as for a task that never
 * existed). Task ids are random UUIDs (122 bits), never sequential.
 *
 * Tasks belong to the server process that runs them: each store has an
 * instance identity (a random id per process), every unfinished task records
 * the instance running it and a lease that instance keeps renewing. Only a
 * task whose lease has run out (its process crashed, was killed or restarted)
 * is marked failed by another process; a live instance's tasks are never
 * touched, so several servers may share one store.
 */
import { ErrorCode } from '../jsonrpc/errors.js';

/** The statuses the tasks extension defines (SEP-2663 "Task Status"). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

export interface TaskRecord {
  taskId: string;
  /** Its caller's `callerKey` ('' for the anonymous caller): opaque text a store must keep exactly (never a NUL). */
  owner: string;
  /** The tool the task runs (diagnostics, the CLI). */
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  lastUpdatedAt: number;
  /** From creation; null: kept until deleted. */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** Outstanding requests to the client (status input_required). */
  inputRequests?: Record<string, unknown>;
  /** The final result (status completed): what tools/call would have returned. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error (status failed). */
  error?: TaskError;
}

/** What a task whose server is gone reads as (documented in docs/tasks.md, "Durable"). */
export const ORPHANED_TASK_ERROR: TaskError = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'The server restarted while the task was running; its work was lost. Call the tool again.',
});

/** How long an instance's claim on its unfinished tasks lasts unless renewed (default 30 s; renewed every third of it). */
export const DEFAULT_TASK_LEASE_MS = 30_000;
const MIN_TASK_LEASE_MS = 1_000;

/** Throws a RangeError unless `leaseMs` is a whole number of milliseconds from 1,000 to 1 hour. */
export function checkLeaseMs(leaseMs: number): void {
  if (!Number.isInteger(leaseMs) || leaseMs < MIN_TASK_LEASE_MS || leaseMs > 3_600_000) {
    throw new RangeError(`tasks leaseMs must be an integer number of milliseconds from ${MIN_TASK_LEASE_MS} to 3600000 (got ${String(leaseMs)})`);
  }
}

/** What a change may set; `taskId`, `owner`, `tool` and `createdAt` never change. */
export type TaskPatch = Partial<Pick<TaskRecord, 'status' | 'statusMessage' | 'inputRequests' | 'result' | 'error' | 'ttlMs' | 'pollIntervalMs'>>;

/** Where a listing page ends: the last task it held. */
export interface TaskCursor {
  createdAt: number;
  taskId: string;
}

export interface TaskStore {
  /** This process's identity in the store (random per process, never reused). */
  readonly instanceId: string;
  /**
   * Stores a new task, run by this instance under a lease it renews until
   * the task ends or the store is closed. Resolves only once a `get` for it
   * would find it (the handle is sent after this: SEP-2663 "Task Creation" MUST).
   */
  create(record: TaskRecord): Promise<void>;
  /** The task, if it exists, belongs to `owner` and has not outlived its TTL. */
  get(taskId: string, owner: string, now?: number): Promise<TaskRecord | undefined>;
  /**
   * Applies `patch` unless the task is already terminal (terminal states never
   * change); resolves with the task as stored afterwards, undefined if gone.
   */
  update(taskId: string, patch: TaskPatch, now?: number): Promise<TaskRecord | undefined>;
  /**
   * The owner's live tasks, oldest first (by creation, then id), after the
   * one `after` names; at most `limit` (the 2025-11-25 `tasks/list`).
   */
  list(owner: string, options: { after?: TaskCursor; limit: number }, now?: number): Promise<TaskRecord[]>;
  /** Deletes tasks past their TTL; resolves with how many. */
  /**
   * For an operator (the console's "tasks running" panel): the unfinished tasks (working or
   * input_required) of every owner and instance, oldest first, at most `limit`. Optional: a store
   * that cannot list them without a scan leaves it out.
   */
  listUnfinished?(options: { limit: number }): Promise<TaskRecord[]>;
  purgeExpired(now?: number): Promise<number>;
  /**
   * Marks failed every task still working or waiting for input whose
   * instance's lease ran out by `now` (the process that ran it is gone: it
   * crashed, was killed or restarted); never a task of this instance or of
   * another live one. Resolves with how many. A server calls it when it opens
   * the store; the store repeats it while open.
   */
  failUnfinished(error: TaskError, now?: number): Promise<number>;
  /** Stops renewing leases and fails this instance's unfinished tasks (its process is ending them). */
  close(): void;
}

export function isExpired(record: Pick<TaskRecord, 'createdAt' | 'ttlMs'>, now: number): boolean {
  return record.ttlMs !== null && now >= record.createdAt + record.ttlMs;
}
