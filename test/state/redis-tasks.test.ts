import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisConnection } from '../../src/state/redis/connection.js';
import { RedisTaskStore } from '../../src/state/redis/tasks.js';
import { ORPHANED_TASK_ERROR, type TaskRecord } from '../../src/tasks/store.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { until } from '../helpers/until.js';

let redis: TestRedis | undefined;
beforeAll(async () => {
  if (REDIS_SERVER) redis = await TestRedis.create();
}, 30_000);
afterAll(() => redis?.destroy());

let prefixes = 0;
/** Two instances sharing one Redis (one key prefix per test). */
function twoStores(leaseMs = 30_000) {
  const keyPrefix = `tasks${++prefixes}:`;
  const connection = () => redisConnection(redis!.url, { keyPrefix });
  const a = new RedisTaskStore(connection(), { leaseMs });
  const b = new RedisTaskStore(connection(), { leaseMs });
  const admin = redisConnection(redis!.url, { keyPrefix });
  return { a, b, admin, keyPrefix };
}

function task(taskId: string, owner = '', createdAt = Date.now(), status: TaskRecord['status'] = 'working'): TaskRecord {
  return { taskId, owner, tool: 'x', status, createdAt, lastUpdatedAt: createdAt, ttlMs: 3_600_000, pollIntervalMs: 10 };
}

describe.skipIf(!REDIS_SERVER)('RedisTaskStore (a real redis-server)', () => {
  it("any instance reads a task, only its owner's; terminal states never change, even with two instances writing at once", async () => {
    const { a, b } = twoStores();
    await a.create(task('t1', 'alice'));
    expect((await b.get('t1', 'alice'))?.status).toBe('working');
    expect(await b.get('t1', 'bob')).toBeUndefined();
    const [one, two] = await Promise.all([
      a.update('t1', { status: 'completed', result: { content: [] } }),
      b.update('t1', { status: 'cancelled', statusMessage: 'stop' }),
    ]);
    const final = await a.get('t1', 'alice');
    expect(['completed', 'cancelled']).toContain(final?.status);
    expect([one?.status, two?.status]).toEqual([final?.status, final?.status]);
    // A result with an empty array survives the round trip as an array.
    if (final?.status === 'completed') expect(final.result).toEqual({ content: [] });
    expect((await b.update('t1', { status: 'working' }))?.status).toBe(final?.status);
    expect(await a.update('missing', { status: 'failed' })).toBeUndefined();
    a.close();
    b.close();
  });

  it("lists an owner's live tasks oldest first, by id on ties, page by page", async () => {
    const { a } = twoStores();
    const t = Date.now();
    for (const id of ['c', 'a', 'b']) await a.create(task(id, 'o', t));
    await a.create(task('d', 'o', t + 1));
    await a.create(task('x', 'p', t));
    await a.create({ ...task('old', 'o', t - 10_000), ttlMs: 1 });
    const first = await a.list('o', { limit: 2 });
    expect(first.map((r) => r.taskId)).toEqual(['a', 'b']);
    const rest = await a.list('o', { limit: 10, after: { createdAt: t, taskId: 'b' } });
    expect(rest.map((r) => r.taskId)).toEqual(['c', 'd']);
    a.close();
  });

  it("another instance fails a task only once the running instance's lease is gone, never a live one's", async () => {
    const { a, b, admin, keyPrefix } = twoStores(1_000);
    await a.create(task('t1'));
    // Renewed by its timer: still live after more than a lease.
    await until(async () => (await admin.run((c) => c.pttl(`${keyPrefix}task-lease:${a.instanceId}`))) > 700, 'a renewal');
    expect(await b.failUnfinished(ORPHANED_TASK_ERROR)).toBe(0);
    expect(await a.failUnfinished(ORPHANED_TASK_ERROR)).toBe(0);
    // The process is gone (its lease key expired, as after a SIGKILL): b's own lease tick fails the task.
    const dead = new RedisTaskStore(redisConnection(redis!.url, { keyPrefix }), { leaseMs: 1_000 });
    await dead.create(task('t2'));
    (dead as unknown as { leaseTimer: NodeJS.Timeout }).leaseTimer.close();
    await until(async () => (await b.get('t2', ''))?.status === 'failed', "the dead instance's task to fail", 15_000);
    expect(await b.get('t2', '')).toMatchObject({ status: 'failed', error: ORPHANED_TASK_ERROR });
    expect((await b.get('t1', ''))?.status).toBe('working');
    // Closing fails the closing instance's own unfinished tasks.
    a.close();
    await until(async () => (await b.get('t1', ''))?.status === 'failed', 'a closed instance to fail its own');
    b.close();
    await admin.release();
  }, 30_000);

  it("lists every instance's unfinished tasks for an operator, oldest first, without a key scan", async () => {
    const { a, b, admin } = twoStores();
    const now = Date.now(); // tasks expire ttlMs after createdAt
    await a.create(task('t1', 'alice', now + 1));
    await b.create(task('t2', 'bob', now + 2, 'input_required'));
    await a.create(task('t3', 'alice', now + 3, 'completed'));
    await b.create(task('t4', 'carol', now + 4));
    await b.update('t4', { status: 'cancelled' });
    expect((await a.listUnfinished({ limit: 10 })).map((t) => [t.taskId, t.owner, t.status])).toEqual([
      ['t1', 'alice', 'working'],
      ['t2', 'bob', 'input_required'],
    ]);
    expect((await b.listUnfinished({ limit: 1 })).map((t) => t.taskId)).toEqual(['t1']);
    await expect(a.listUnfinished({ limit: 0 })).rejects.toThrow(RangeError);
    a.close();
    b.close();
    await admin.release();
  }, 30_000);
});
