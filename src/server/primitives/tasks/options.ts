import type { Implementation } from '../../../protocol/meta.js';
import type { Logger } from '../../../runtime/logger.js';
import type { EventBus } from '../../../state/bus.js';
import type { TaskStore } from '../../../tasks/store.js';
import type { ToolRegistry } from '../../registry.js';
import type { TaskMode } from './policy.js';

export interface TasksOptions {
  /** Where tasks are kept (default: SQLite at `.toolwright/tasks.db`). */
  store: TaskStore;
  /** How long a task and its result are kept, from creation (default 1 hour); null: until deleted. */
  ttlMs?: number | null;
  /** The polling interval suggested to clients (default 1,000 ms). */
  pollIntervalMs?: number;
  /** Mode for tools that set none (default 'never'). */
  defaultMode?: TaskMode;
  /** The operator's mode per tool name; wins over the tool's own `task`. */
  tools?: Readonly<Record<string, TaskMode>>;
  /** Tasks running or waiting for input at once; beyond it calls are answered directly (default 1,000). */
  maxActive?: number;
}

export interface TasksPrimitiveOptions extends TasksOptions {
  /** Where status changes, cancellations and answers travel between instances sharing the store. */
  bus?: EventBus;
  registry: ToolRegistry;
  serverInfo: Implementation;
  logger: Logger;
}
