/**
 * Durable task state behind a small interface (DESIGN.md "State behind small
 * interfaces"): the embedded SQLite store is the default; a shared store
 * (Redis, PostgreSQL) implements the same methods for several instances.
 *
 * Every read is by task id AND owner: one principal's task is invisible to
 * every other (the unknown-task error, the same as for a task that never
 * existed). Task ids are random UUIDs (122 bits), never sequential.
 */

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
  /** The principal that created it ('' for an unauthenticated caller). */
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

/** What a change may set; `taskId`, `owner`, `tool` and `createdAt` never change. */
export type TaskPatch = Partial<Pick<TaskRecord, 'status' | 'statusMessage' | 'inputRequests' | 'result' | 'error' | 'ttlMs' | 'pollIntervalMs'>>;

/** Where a listing page ends: the last task it held. */
export interface TaskCursor {
  createdAt: number;
  taskId: string;
}

export interface TaskStore {
  /**
   * Stores a new task. Resolves only once a `get` for it would find it (the
   * handle is sent after this: SEP-2663 "Task Creation" MUST).
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
  purgeExpired(now?: number): Promise<number>;
  /**
   * Marks every task still working or waiting for input as failed (the
   * process that ran them is gone: a restart). Called once when a server opens
   * the store; a shared store leaves other instances' tasks alone.
   */
  failUnfinished(error: TaskError, now?: number): Promise<number>;
  close(): void;
}

export function isExpired(record: Pick<TaskRecord, 'createdAt' | 'ttlMs'>, now: number): boolean {
  return record.ttlMs !== null && now >= record.createdAt + record.ttlMs;
}
