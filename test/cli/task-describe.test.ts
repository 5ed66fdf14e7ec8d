import { describe, expect, it } from 'vitest';
import { describeTask } from '../../src/cli/task.js';

describe('toolwright task get: a failed task', () => {
  it('prints the error code once when the server repeats it in its message', () => {
    const text = describeTask({ taskId: 't1', status: 'failed', ttlMs: null, error: { code: -32602, message: 'MCP error -32602: city is required' } });
    expect(text).toContain('error -32602: city is required');
    expect(text).not.toMatch(/-32602.*-32602/);
  });

  it('keeps a message that only mentions a number', () => {
    const text = describeTask({ taskId: 't1', status: 'failed', ttlMs: null, error: { code: -32603, message: 'upstream answered 500' } });
    expect(text).toContain('error -32603: upstream answered 500');
  });
});
