import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool } from '../../../src/server/tool.js';
import { MemoryTaskStore } from '../../../src/tasks/memory-store.js';
import { ORPHANED_TASK_ERROR, type TaskRecord } from '../../../src/tasks/store.js';
import { WITH_TASKS_AND_ELICITATION } from '../../helpers/tasks.js';
import { wire } from '../../helpers/wire.js';

// The task store of a default install (no better-sqlite3): the SQLite store's rules, in memory.
const task = (id: string, owner: string, createdAt: number, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  taskId: id,
  owner,
  tool: 'x',
  status: 'working',
  createdAt,
  lastUpdatedAt: createdAt,
  ttlMs: 60_000,
  pollIntervalMs: 10,
  ...extra,
});

describe('MemoryTaskStore', () => {
  it('keeps a finished task for its owner only, and a terminal task never changes', async () => {
    const store = new MemoryTaskStore();
    await store.create(task('t1', 'alice', Date.now()));
    await store.update('t1', { status: 'completed', result: { content: [] } });
    await store.update('t1', { status: 'failed', error: { code: 1, message: 'm' } });
    expect(await store.get('t1', 'bob')).toBeUndefined();
    expect(await store.get('t1', 'alice')).toMatchObject({ status: 'completed', result: { content: [] } });
    expect(await store.get('t1', 'alice')).not.toHaveProperty('error');
  });

  it('a task past its TTL reads as unknown and is purged; a record held by a caller is a copy', async () => {
    const store = new MemoryTaskStore();
    const record = task('t1', 'a', 1_000, { ttlMs: 100 });
    await store.create(record);
    record.status = 'cancelled';
    expect((await store.get('t1', 'a', 1_050))?.status).toBe('working');
    expect(await store.get('t1', 'a', 1_100)).toBeUndefined();
    expect(await store.purgeExpired(1_100)).toBe(1);
    expect(await store.purgeExpired(1_100)).toBe(0);
  });

  it("lists an owner's live tasks oldest first, in pages after a cursor", async () => {
    const store = new MemoryTaskStore();
    for (const [id, at] of [
      ['b', 2],
      ['a', 2],
      ['c', 1],
      ['d', 3],
    ] as const)
      await store.create(task(id, 'o', at));
    await store.create(task('z', 'other', 0));
    const first = await store.list('o', { limit: 2 }, 10);
    expect(first.map((t) => t.taskId)).toEqual(['c', 'a']);
    const next = await store.list('o', { limit: 5, after: { createdAt: 2, taskId: 'a' } }, 10);
    expect(next.map((t) => t.taskId)).toEqual(['b', 'd']);
  });

  it('closing fails the unfinished tasks (nothing will finish them), finished ones stay', async () => {
    const store = new MemoryTaskStore();
    const now = Date.now();
    await store.create(task('run', 'o', now));
    await store.create(task('done', 'o', now + 1));
    await store.update('done', { status: 'completed', result: { content: [] } });
    expect((await store.listUnfinished({ limit: 10 })).map((t) => t.taskId)).toEqual(['run']);
    store.close();
    expect(await store.get('run', 'o')).toMatchObject({ status: 'failed', error: ORPHANED_TASK_ERROR });
    expect((await store.get('done', 'o'))?.status).toBe('completed');
  });

  it('serves the tasks extension end to end: a call becomes a task whose result tasks/get returns', async () => {
    const quick = defineTool({ name: 'quick', description: 'd', inputSchema: { type: 'object' }, task: 'always', handler: () => 'done quickly' });
    const w = wire(new ToolServer({ tools: [quick], audit: false, tasks: { store: new MemoryTaskStore(), pollIntervalMs: 20 } }));
    const created = (await w.modern('tools/call', { name: 'quick', arguments: {} }, WITH_TASKS_AND_ELICITATION)).result;
    expect(created).toMatchObject({ resultType: 'task' });
    await expect
      .poll(async () => (await w.modern('tasks/get', { taskId: created.taskId }, WITH_TASKS_AND_ELICITATION)).result, { timeout: 5_000, interval: 20 })
      .toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'done quickly' }] } });
  });
});
