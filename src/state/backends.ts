import { DefaultAuditSink } from '../audit/default-sink.js';
import type { AuditSink } from '../audit/record.js';
import { createDefaultTaskStore } from '../tasks/default-store.js';
import type { TaskStore } from '../tasks/store.js';
import { InProcessEventBus, type EventBus } from './bus.js';
import { RedisEventBus } from './redis/bus.js';
import { RedisSessionRecords } from './redis/sessions.js';
import { RedisTaskStore } from './redis/tasks.js';
import type { SessionRecords } from './sessions.js';
import type { Logger } from '../runtime/logger.js';
import { MemoryResultStore, type ResultStore, type ResultStoreOptions, type StoredContent } from './result-store.js';
import { describeRedisUrl, redisConnection, StateUnavailableError, type RedisConnection } from './redis/connection.js';
import { redisLimiters } from './redis/limits.js';
import { RedisResultStore } from './redis/result-store.js';
import type { CreateLimiter, StateOptions } from './index.js';

/**
 * Which backend keeps each piece of a server's state: the one place that decides. A ToolServer
 * asks here for what its options do not give it (audit trail, event bus, session records, task
 * store, stored results and rate limiters), and a config asks `tasksInRedis` before it names a
 * task file. The rule: memory or a local file by default (SQLite, or JSON lines for the audit trail without better-sqlite3); with `state.redis`, what
 * instances must share goes to that Redis.
 */

/** The audit trail of a server's `audit` option: the default trail when none is given (SQLite with better-sqlite3 installed, else JSON lines), none for `false`. */
export function auditSinkFor(audit: AuditSink | false | undefined): AuditSink | undefined {
  return audit === undefined ? new DefaultAuditSink() : audit || undefined;
}

/** Where list changes, resource updates, task status and cancellations travel between instances. */
export function eventBusFor(state: StateOptions | undefined, onListenerError: (err: unknown) => void): EventBus {
  return state?.redis
    ? new RedisEventBus(redisConnection(state.redis, { keyPrefix: state.keyPrefix }), onListenerError)
    : new InProcessEventBus(onListenerError);
}

/** Where legacy sessions are recorded so that any instance can serve them; undefined: each instance keeps its own. */
export function sessionRecordsFor(state: StateOptions | undefined): SessionRecords | undefined {
  return state?.redis ? new RedisSessionRecords(redisConnection(state.redis, { keyPrefix: state.keyPrefix })) : undefined;
}

/** With `state.redis` and no store named, tasks are kept in Redis: every instance reads them, on any machine. */
export function tasksInRedis(state: StateOptions | undefined, store: TaskStore | string | undefined): boolean {
  return state?.redis !== undefined && store === undefined;
}

/** The task store: the one given, Redis (tasksInRedis), or SQLite (the file named, else the default file). */
export function taskStoreFor(tasks: { store?: TaskStore | string; leaseMs?: number }, state: StateOptions | undefined): TaskStore {
  if (typeof tasks.store === 'object') return tasks.store;
  if (state?.redis && tasksInRedis(state, tasks.store))
    return new RedisTaskStore(redisConnection(state.redis, { keyPrefix: state.keyPrefix }), { leaseMs: tasks.leaseMs });
  return createDefaultTaskStore(tasks.store, { leaseMs: tasks.leaseMs });
}

/** The stores a ToolServer uses, built from its `state` option. */
export interface SharedState {
  results: ResultStore;
  /** Undefined: the in-process default. */
  createLimiter?: CreateLimiter;
  /** Where it lives, fit to show ('memory', or the Redis URL without its password). */
  where: string;
  /** Resolves true once the shared store is reachable, false if it is not within its connect timeout (it keeps trying on its own). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Shared state means several instances, and a client's retry of an input-required round may reach
 * any of them: each signing `requestState` with a random key of its own would refuse the others'
 * rounds, quietly (issue 30). So `state` without `requestStateSecret` is refused at construction.
 */
export function requireSharedSecret(options: StateOptions | undefined, secret: string | Buffer | undefined): void {
  if (options?.redis && (secret === undefined || secret.length === 0))
    throw new TypeError(
      'requestStateSecret is required with state: every instance must sign input-required rounds with the same key, or a retry that reaches another instance is refused (config: server.requestStateSecret)',
    );
}

export function sharedState(options: StateOptions | undefined, resultStore: ResultStoreOptions | undefined, logger: Logger): SharedState {
  if (options?.onFailure !== undefined && options.onFailure !== 'refuse' && options.onFailure !== 'open')
    throw new TypeError("state.onFailure must be 'refuse' or 'open'");
  if (!options?.redis) {
    return {
      results: options?.results ?? new MemoryResultStore(resultStore),
      createLimiter: options?.createLimiter,
      where: 'memory',
      ready: async () => true,
      close: async () => {},
    };
  }
  const redis = redisConnection(options.redis, { keyPrefix: options.keyPrefix });
  const where = `${describeRedisUrl(options.redis)} (keys ${redis.keyPrefix}*)`;
  reportOutages(redis, where, logger);
  const onFailure = options.onFailure ?? 'refuse';
  const shared = new RedisResultStore(redis, { ttlMs: resultStore?.ttlMs });
  return {
    results: options.results ?? (onFailure === 'open' ? new FallbackResultStore(shared, new MemoryResultStore(resultStore)) : shared),
    createLimiter: options.createLimiter ?? redisLimiters(redis, onFailure),
    where,
    ready: () => redis.run(async () => true).catch(() => false),
    close: () => redis.release(),
  };
}

/** Says in the log when Redis goes away and when it is back (once each), with where it is but never its password. */
function reportOutages(redis: RedisConnection, where: string, logger: Logger): void {
  let down = false;
  redis.client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.error(
      { state: where, error: err.message },
      'shared state unavailable: Redis cannot be reached; calls that need it fail until it is back (reconnecting on its own)',
    );
  });
  redis.client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.warn({ state: where }, 'shared state: Redis reachable again');
  });
}

/**
 * state.onFailure 'open': a result that cannot go to Redis is kept in this
 * instance's memory instead (readable only through this instance), and a
 * read that cannot reach Redis looks there.
 */
class FallbackResultStore implements ResultStore {
  readonly ttlMs: number;
  constructor(
    private readonly shared: ResultStore,
    private readonly local: MemoryResultStore,
  ) {
    this.ttlMs = shared.ttlMs;
  }

  async put(content: { mimeType: string; text?: string; blob?: string }, owner: string | undefined, label: string): Promise<StoredContent> {
    try {
      return await this.shared.put(content, owner, label);
    } catch (err) {
      if (!(err instanceof StateUnavailableError)) throw err;
      return this.local.putNow(content, owner, label);
    }
  }

  async get(uri: string, owner: string | undefined): Promise<StoredContent | undefined> {
    const local = this.local.getNow(uri, owner);
    if (local) return local;
    try {
      return await this.shared.get(uri, owner);
    } catch (err) {
      if (err instanceof StateUnavailableError) return undefined;
      throw err;
    }
  }
}
