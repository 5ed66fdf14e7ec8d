/**
 * The shapes of a task as the client shows them, apart from tasks.ts (which
 * follows tasks) so that types.ts can name TaskCallOptions without importing
 * the code that uses it (and through it results.ts, which imports types.ts).
 */

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as the server last described it (the DetailedTask of `tasks/get`). */
export interface TaskInfo {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  /** From creation; null: kept until deleted. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** Outstanding questions (status input_required). */
  inputRequests?: Record<string, unknown>;
  /** The final tools/call result (status completed). */
  result?: Record<string, unknown>;
  /** The JSON-RPC error (status failed). */
  error?: { code: number; message: string; data?: unknown };
}

export interface TaskCallOptions {
  /** Told of the task when the server creates it, and again whenever its status or status message changes. */
  onTask?: (task: TaskInfo) => void;
  /** Poll no more often than this (default: the server's pollIntervalMs). */
  pollIntervalMs?: number;
}
