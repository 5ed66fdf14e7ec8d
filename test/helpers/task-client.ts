import { expect } from 'vitest';
import { CancelledError, type ToolClient } from '../../src/client.js';

/**
 * Calls `tool` as a task, aborts the caller's signal once the task exists, and checks what
 * either era must then show: the call rejects with CancelledError and the task reads cancelled.
 */
export async function expectAbortCancelsTask(client: ToolClient, tool: string): Promise<void> {
  const controller = new AbortController();
  let taskId = '';
  const call = client.callTool(
    tool,
    {},
    {
      signal: controller.signal,
      task: {
        onTask: (t) => {
          taskId = t.taskId;
          setTimeout(() => controller.abort(), 50);
        },
      },
    },
  );
  await expect(call).rejects.toBeInstanceOf(CancelledError);
  expect(taskId).not.toBe('');
  expect(await client.getTask(taskId)).toMatchObject({ status: 'cancelled' });
}
