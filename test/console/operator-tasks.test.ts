import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runningTasks } from '../../src/console/operator/index.js';
import { SqliteTaskStore } from '../../src/tasks/sqlite-store.js';
import type { TaskRecord, TaskStore } from '../../src/tasks/store.js';
import { tempDir } from '../helpers/temp.js';

function task(taskId: string, owner: string, createdAt: number, status: TaskRecord['status'] = 'working'): TaskRecord {
  return {
    taskId,
    owner,
    tool: 'slow',
    status,
    createdAt,
    lastUpdatedAt: createdAt,
    ttlMs: 3_600_000,
    pollIntervalMs: 10,
    result: { secret: 'not for the panel' },
  };
}

describe('runningTasks', () => {
  it("lists every owner's unfinished tasks (two instances, one file), oldest first, without results", async () => {
    const file = join(tempDir('tw-operator-tasks-'), 'tasks.db');
    const a = new SqliteTaskStore(file);
    const b = new SqliteTaskStore(file);
    try {
      await a.create(task('t1', 'alice', 1_000));
      await b.create(task('t2', 'bob', 2_000, 'input_required'));
      await a.create(task('t3', 'alice', 3_000, 'completed'));
      await a.create(task('t4', 'carol', 4_000));
      await a.update('t4', { status: 'cancelled' });
      const running = await runningTasks(a);
      expect(running).toEqual([
        {
          taskId: 't1',
          tool: 'slow',
          status: 'working',
          owner: 'alice',
          createdAt: new Date(1_000).toISOString(),
          lastUpdatedAt: new Date(1_000).toISOString(),
        },
        {
          taskId: 't2',
          tool: 'slow',
          status: 'input_required',
          owner: 'bob',
          createdAt: new Date(2_000).toISOString(),
          lastUpdatedAt: new Date(2_000).toISOString(),
        },
      ]);
      expect(await runningTasks(a, 1)).toHaveLength(1);
      expect(await runningTasks(a, Number.NaN)).toHaveLength(1);
    } finally {
      a.close();
      b.close();
    }
  });

  it('is undefined for a store that cannot list unfinished tasks', async () => {
    const store = { listUnfinished: undefined } as unknown as TaskStore;
    expect(await runningTasks(store)).toBeUndefined();
  });
});
