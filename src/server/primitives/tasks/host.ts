import type { TaskRecord, TaskStore } from '../../../tasks/store.js';
import type { Exchange } from '../../exchange.js';
import type { Operation } from '../../pipeline/operation.js';
import type { TaskNotifications } from './notifications.js';
import type { TasksPrimitiveOptions } from './options.js';
import type { ResolvedTaskMode } from './policy.js';
import type { TaskSlots } from './slots.js';
import type { PassOutcome, TaskRun } from './task-run.js';

/**
 * What the tasks' methods share (TasksPrimitive holds it): the store, the
 * tasks this instance runs, their slots and notifications, and the steps
 * every task takes whichever era made it.
 */
export interface TaskHost {
  readonly options: TasksPrimitiveOptions;
  readonly store: TaskStore;
  /** The tasks this instance runs, by id. */
  readonly live: Map<string, TaskRun>;
  readonly slots: TaskSlots;
  readonly notifications: TaskNotifications;
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  /** The request's task if it is its caller's (else the one not-found error). */
  find(op: Operation, params: Record<string, unknown>): Promise<TaskRecord>;
  /** The store, opened once (what servers that are gone left running is failed first). */
  ready(): Promise<void>;
  forget(run: TaskRun): void;
  modeOf(toolName: string): ResolvedTaskMode;
  /** Cancels a task this instance does not run (in the store, and tells the instance that runs it). */
  cancelElsewhere(record: TaskRecord): Promise<void>;
  /** A new task's record, working from now, owned by the exchange's caller. */
  newRecord(exchange: Exchange, tool: string, ttlMs: number | null): TaskRecord;
  /**
   * Makes the call a task: its record stored (else its slot given back, its work stopped, and the
   * error thrown), then live until it ends or outlives its TTL, its outcome stored once `first()` (its work) settles.
   */
  adopt(run: TaskRun, record: TaskRecord, releaseSlot: (() => void) | undefined, first: () => Promise<PassOutcome>): Promise<void>;
}
