import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import {
  checkLeaseMs,
  DEFAULT_TASK_LEASE_MS,
  isExpired,
  ORPHANED_TASK_ERROR,
  TERMINAL_STATUSES,
  type TaskCursor,
  type TaskError,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
} from '../../tasks/store.js';
import type { RedisConnection } from './connection.js';

/**
 * Writes `json` over a task's record only if nobody wrote since it was read (its version) and it
 * is not terminal; a terminal task leaves its instance's running set. 1: written, 0: conflict.
 */
const COMPARE_AND_SET = `
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'v', ARGV[3], 'status', ARGV[4])
if ARGV[5] == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIREAT', KEYS[1], ARGV[5]) end
if ARGV[4] == 'completed' or ARGV[4] == 'failed' or ARGV[4] == 'cancelled' then redis.call('SREM', KEYS[2], ARGV[6]) end
return 1
`;

/**
 * The task store in Redis (`server.state.redis`, docs/deployment.md), for instances on several
 * machines: the TaskStore contract of src/tasks/store.ts, as the SQLite store keeps it.
 *
 * - `<prefix>task:<id>`: a hash (the record's JSON, a version, its status, the instance running
 *   it), expiring with the task's TTL.
 * - `<prefix>tasks-of:<owner>`: the owner's task ids by creation time (tasks/list), pruned of
 *   expired ones as they are met.
 * - `<prefix>task-lease:<instance>` (expiring after the lease, renewed every third of it) and
 *   `<prefix>task-running:<instance>` (its unfinished tasks), listed in `<prefix>task-instances`:
 *   another instance fails the unfinished tasks of an instance whose lease ran out.
 *
 * Updates are compare-and-set on the version (a Lua script): terminal states never change, and
 * two instances writing at once never lose a change. Without persistence in Redis, a Redis
 * restart loses the tasks (and the leases: a live instance renews its own at once).
 */
export class RedisTaskStore implements TaskStore {
  readonly instanceId = nodeCrypto().randomUUID();
  private readonly leaseMs: number;
  private readonly leaseTimer: NodeJS.Timeout;
  private closed = false;
  /** Whether this instance has run a task: only then does it hold (and renew) a lease. */
  private running = false;

  constructor(
    private readonly connection: RedisConnection,
    options: { leaseMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_TASK_LEASE_MS;
    checkLeaseMs(this.leaseMs);
    this.leaseTimer = setInterval(() => void this.keepLeases(), Math.floor(this.leaseMs / 3));
    this.leaseTimer.unref();
  }

  private k(name: string): string {
    return this.connection.key(name);
  }
  private taskKey(id: string): string {
    return this.k(`task:${id}`);
  }
  private runningKey(instance: string): string {
    return this.k(`task-running:${instance}`);
  }

  async create(record: TaskRecord): Promise<void> {
    const key = this.taskKey(record.taskId);
    const unfinished = !TERMINAL_STATUSES.has(record.status);
    await this.connection.run(async (c) => {
      const m = c.multi().hset(key, 'json', JSON.stringify(record), 'v', '1', 'status', record.status, 'instance', this.instanceId);
      if (record.ttlMs !== null) m.pexpireat(key, record.createdAt + record.ttlMs);
      m.zadd(this.k(`tasks-of:${record.owner}`), record.createdAt, record.taskId);
      if (unfinished) {
        this.running = true;
        m.sadd(this.runningKey(this.instanceId), record.taskId).sadd(this.k('task-instances'), this.instanceId);
        m.set(this.k(`task-lease:${this.instanceId}`), '1', 'PX', this.leaseMs);
      }
      const replies = await m.exec();
      const failed = replies?.find(([err]) => err);
      if (failed) throw failed[0];
    });
  }

  private async read(taskId: string): Promise<{ record: TaskRecord; version: string; instance: string } | undefined> {
    const [json, version, instance] = await this.connection.run((c) => c.hmget(this.taskKey(taskId), 'json', 'v', 'instance'));
    if (!json || !version) return undefined;
    try {
      return { record: JSON.parse(json) as TaskRecord, version, instance: instance ?? '' };
    } catch {
      return undefined;
    }
  }

  async get(taskId: string, owner: string, now = Date.now()): Promise<TaskRecord | undefined> {
    const found = await this.read(taskId);
    if (!found || found.record.owner !== owner || isExpired(found.record, now)) return undefined;
    return found.record;
  }

  async update(taskId: string, patch: TaskPatch, now = Date.now()): Promise<TaskRecord | undefined> {
    // Compare-and-set: another instance's write in between means read again (bounded: writes to one task are few).
    for (let attempt = 0; attempt < 20; attempt++) {
      const found = await this.read(taskId);
      if (!found) return undefined;
      const current = found.record;
      if (TERMINAL_STATUSES.has(current.status)) return current;
      const next: TaskRecord = { ...current, ...patch, lastUpdatedAt: now };
      if (next.status !== 'input_required') delete next.inputRequests;
      if (next.status !== 'completed') delete next.result;
      if (next.status !== 'failed') delete next.error;
      const expireAt = next.ttlMs === null ? '' : String(next.createdAt + next.ttlMs);
      const written = await this.connection.run((c) =>
        c.eval(
          COMPARE_AND_SET,
          2,
          this.taskKey(taskId),
          this.runningKey(found.instance),
          found.version,
          JSON.stringify(next),
          String(Number(found.version) + 1),
          next.status,
          expireAt,
          taskId,
        ),
      );
      if (written === 1) return next;
    }
    throw new Error(`task ${taskId} could not be updated: too many concurrent writes`);
  }

  async list(owner: string, options: { after?: TaskCursor; limit: number }, now = Date.now()): Promise<TaskRecord[]> {
    const index = this.k(`tasks-of:${owner}`);
    const after = options.after;
    // Same score: Redis orders members bytewise, as the SQLite store orders task ids.
    const ids = await this.connection.run((c) => c.zrangebyscore(index, after ? after.createdAt : '-inf', '+inf', 'WITHSCORES'));
    const out: TaskRecord[] = [];
    const gone: string[] = [];
    for (let i = 0; i < ids.length && out.length < options.limit; i += 2) {
      const id = ids[i]!;
      const createdAt = Number(ids[i + 1]);
      if (after && (createdAt < after.createdAt || (createdAt === after.createdAt && id <= after.taskId))) continue;
      const found = await this.read(id);
      if (!found || isExpired(found.record, now)) gone.push(id);
      else if (found.record.owner === owner) out.push(found.record);
    }
    if (gone.length) await this.connection.run((c) => c.zrem(index, ...gone)).catch(() => undefined);
    return out;
  }

  /**
   * Every instance's running set (listed in task-instances): no key scan. The sets, then the
   * tasks, are read together (one auto-pipelined write each), not one round trip per key.
   */
  async listUnfinished(options: { limit: number }): Promise<TaskRecord[]> {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a positive integer');
    const instances = await this.connection.run((c) => c.smembers(this.k('task-instances')));
    const sets = await Promise.all(instances.map((instance) => this.connection.run((c) => c.smembers(this.runningKey(instance)))));
    const found = await Promise.all(sets.flat().map((id) => this.read(id)));
    const out = found.flatMap((task) => (task && !TERMINAL_STATUSES.has(task.record.status) ? [task.record] : []));
    out.sort((a, b) => a.createdAt - b.createdAt || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
    return out.slice(0, options.limit);
  }

  /** Redis expires tasks itself (each key's TTL); the owners' indexes are pruned as list meets them. */
  async purgeExpired(): Promise<number> {
    return 0;
  }

  async failUnfinished(error: TaskError, now = Date.now()): Promise<number> {
    const instances = await this.connection.run((c) => c.smembers(this.k('task-instances')));
    let failed = 0;
    for (const instance of instances) {
      if (instance === this.instanceId) continue;
      const alive = await this.connection.run((c) => c.exists(this.k(`task-lease:${instance}`)));
      if (alive) continue;
      failed += await this.failTasksOf(instance, error, now);
      await this.connection.run((c) => c.multi().del(this.runningKey(instance)).srem(this.k('task-instances'), instance).exec());
    }
    return failed;
  }

  private async failTasksOf(instance: string, error: TaskError, now: number): Promise<number> {
    const ids = await this.connection.run((c) => c.smembers(this.runningKey(instance)));
    let failed = 0;
    for (const id of ids) {
      const before = await this.read(id);
      if (!before || TERMINAL_STATUSES.has(before.record.status)) continue;
      const after = await this.update(id, { status: 'failed', statusMessage: error.message, error }, now);
      if (after?.status === 'failed') failed++;
    }
    return failed;
  }

  /** The lease tick: extends this instance's claim, then fails what instances that are gone left unfinished. */
  private async keepLeases(): Promise<void> {
    try {
      if (this.running)
        await this.connection.run((c) =>
          c
            .multi()
            .set(this.k(`task-lease:${this.instanceId}`), '1', 'PX', this.leaseMs)
            .sadd(this.k('task-instances'), this.instanceId)
            .exec(),
        );
      await this.failUnfinished(ORPHANED_TASK_ERROR);
    } catch {
      // Redis away: the next tick tries again (another instance's lease cannot run out unseen for long).
    }
  }

  /** Stops renewing and fails this instance's unfinished tasks (in the background: close is synchronous). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.leaseTimer);
    // Redis not reached now: there is nothing to clean up that could be (a store that never
    // connected holds no task there; one whose Redis went away fails each command at once, and
    // the others fail its tasks once the lease runs out). Waiting for a first connection here
    // would hold the closing process for the connect timeout, twice.
    if (!this.connection.ready) {
      void this.connection.release();
      return;
    }
    void (async () => {
      try {
        await this.failTasksOf(this.instanceId, ORPHANED_TASK_ERROR, Date.now());
        await this.connection.run((c) =>
          c
            .multi()
            .del(this.k(`task-lease:${this.instanceId}`), this.runningKey(this.instanceId))
            .srem(this.k('task-instances'), this.instanceId)
            .exec(),
        );
      } catch {
        // Redis away: the others fail them once the lease runs out.
      } finally {
        await this.connection.release();
      }
    })();
  }
}
