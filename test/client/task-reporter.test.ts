import { describe, expect, it } from 'vitest';
import { taskReporter, type TaskInfo } from '../../src/client/tasks.js';

// One reporter serves both task flows (modern tasks.ts and 2025-11-25 legacy-tasks.ts).
const task = (status: TaskInfo['status'], statusMessage?: string) => ({ taskId: 't1', status, ...(statusMessage ? { statusMessage } : {}) }) as TaskInfo;

describe("a task's reports to onTask", () => {
  it('tells each change of status or status message once, as a copy', () => {
    const seen: TaskInfo[] = [];
    const tell = taskReporter(
      (t) => seen.push(t),
      () => undefined,
    );
    const working = task('working');
    tell(working);
    tell(task('working'));
    tell(task('working', 'half way'));
    tell(task('working', 'half way'));
    tell(task('completed'));
    expect(seen.map((t) => [t.status, t.statusMessage])).toEqual([
      ['working', undefined],
      ['working', 'half way'],
      ['completed', undefined],
    ]);
    expect(seen[0]).not.toBe(working);
  });

  it('warns when the callback throws and goes on telling', () => {
    const warnings: string[] = [];
    let calls = 0;
    const tell = taskReporter(
      () => {
        calls++;
        throw new Error('boom');
      },
      (m) => warnings.push(m),
    );
    tell(task('working'));
    tell(task('completed'));
    expect(calls).toBe(2);
    expect(warnings).toEqual(['the onTask callback threw: boom', 'the onTask callback threw: boom']);
  });

  it('does nothing without a callback', () => {
    expect(() => taskReporter(undefined, () => undefined)(task('working'))).not.toThrow();
  });
});
