import { afterEach, describe, expect, it } from 'vitest';
import { runCollection, type CallReport } from '../../src/collections/run.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type Tool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const done of cleanup.reverse()) await done();
  cleanup = [];
});

const tools = [
  defineTool({
    name: 'add',
    description: 'Adds.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: (args: { a: number; b: number }) => ({ structuredContent: { sum: args.a + args.b }, content: [{ type: 'text', text: String(args.a + args.b) }] }),
  }),
  defineTool({
    name: 'hang',
    description: 'Waits until cancelled.',
    inputSchema: { type: 'object', properties: {} },
    handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
  }),
] as Tool[];

async function client() {
  const server = new ToolServer({ name: 'runner', logger: createLogger('silent'), audit: false, tools });
  const pair = await createInMemoryPair(server, { era: 'modern' });
  cleanup.push(
    async () => server.close(),
    () => pair.close(),
  );
  return pair.client;
}

describe('runCollection', () => {
  it('runs each call in order, checks its expectation, and goes on past a call that throws', async () => {
    const seen: CallReport[] = [];
    const report = await runCollection(
      await client(),
      {
        name: 'smoke',
        calls: [
          { id: 'sum', name: 'adds', tool: 'add', arguments: { a: 2, b: 3 }, expect: { structuredContent: { sum: 5 } } },
          { id: 'wrong', tool: 'add', arguments: { a: 2, b: 2 }, expect: { structuredContent: { sum: 5 } } },
          { id: 'missing', tool: 'no_such_tool', arguments: {} },
          { id: 'bad-args', tool: 'add', arguments: { a: 'x' }, expect: { isError: true } },
          { id: 'last', tool: 'add', arguments: { a: 1, b: 1 } },
        ],
      },
      { onResult: (call) => seen.push(call) },
    );
    expect(report).toMatchObject({ name: 'smoke', passed: false, total: 5, failed: 2 });
    expect(report.calls.map((call) => [call.label, call.passed])).toEqual([
      ['adds', true],
      ['wrong', false],
      ['missing', false],
      ['bad-args', true],
      ['last', true],
    ]);
    expect(report.calls[1].failures).toEqual(['$.structuredContent.sum: expected 5, got 4']);
    expect(report.calls[2].error).toMatch(/no_such_tool/);
    expect(report.calls[2].failures).toEqual([report.calls[2].error]);
    expect(seen).toEqual(report.calls);
    for (const call of report.calls) expect(call.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a timed-out call fails with its message and the run continues', async () => {
    const report = await runCollection(
      await client(),
      {
        name: 't',
        calls: [
          { id: 'slow', tool: 'hang' },
          { id: 'after', tool: 'add', arguments: { a: 1, b: 2 }, expect: { text: '3' } },
        ],
      },
      { timeoutMs: 50 },
    );
    expect(report.calls[0]).toMatchObject({ passed: false, error: expect.stringMatching(/timed out|time/i) });
    expect(report.calls[1].passed).toBe(true);
  });

  it('the signal stops the run: the call in flight is cancelled and the rest are not made', async () => {
    const controller = new AbortController();
    const c = await client();
    const running = runCollection(
      c,
      {
        name: 's',
        calls: [
          { id: 'slow', tool: 'hang' },
          { id: 'never', tool: 'add', arguments: { a: 1, b: 1 } },
        ],
      },
      { signal: controller.signal },
    );
    controller.abort();
    const report = await running;
    expect(report).toMatchObject({ passed: false, aborted: true, total: 2, calls: [] });
  });
});
