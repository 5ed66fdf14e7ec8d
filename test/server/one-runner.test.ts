import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/index.js';
import { MemoryAuditSink } from '../../src/audit/memory-sink.js';
import { ToolServer } from '../../src/server/server.js';
import { memoryLogger, wire } from '../helpers/wire.js';

// One runner (server/pipeline/run.ts) ends every method's work the same way: a timeout, an
// author's ToolError and a bug each answer alike for prompts/get, resources/read and
// completion/complete (JSON-RPC errors), as tools/call answers them with isError results.

const never = () => new Promise<never>(() => {});

function setup() {
  const audit = new MemoryAuditSink();
  const { logger, records: logs } = memoryLogger();
  const server = new ToolServer({
    logger,
    audit,
    timeoutMs: 100,
    tools: [
      { name: 'slow', description: 'Never answers.', inputSchema: { type: 'object' }, handler: never },
      {
        name: 'refuses',
        description: 'Says why not.',
        inputSchema: { type: 'object' },
        handler: () => {
          throw new ToolError('not today');
        },
      },
    ],
    prompts: [
      { name: 'slow', get: never },
      {
        name: 'refuses',
        get: () => {
          throw new ToolError('not today');
        },
      },
      {
        name: 'broken',
        arguments: [{ name: 'a' }],
        complete: {
          a: () => {
            throw new ToolError('no suggestions today');
          },
        },
        get: () => {
          throw new Error('db password wrong');
        },
      },
    ],
    resources: [{ uri: 'test://slow', name: 'slow', read: never }],
    resourceTemplates: [{ uriTemplate: 'test://late/{x}', name: 'late', complete: { x: never }, read: () => 'x' }],
  });
  return { w: wire(server), audit, logs };
}

describe('the one runner', () => {
  it('a handler that outlives its timeout: an isError result for tools/call, -32603 naming what timed out for the others; each recorded as a timeout', async () => {
    const { w, audit } = setup();
    const tool = await w.modern('tools/call', { name: 'slow', arguments: {} });
    expect(tool.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/timed out after 100 ms/) }] });
    const prompt = await w.modern('prompts/get', { name: 'slow' });
    expect(prompt.error).toEqual({ code: -32603, message: 'prompt slow timed out after 100 ms' });
    const read = await w.modern('resources/read', { uri: 'test://slow' });
    expect(read.error).toEqual({ code: -32603, message: 'resource test://slow timed out after 100 ms' });
    const completion = await w.modern('completion/complete', { ref: { type: 'ref/resource', uri: 'test://late/{x}' }, argument: { name: 'x', value: '' } });
    expect(completion.error).toEqual({ code: -32603, message: 'completion for test://late/{x} timed out after 100 ms' });
    expect(audit.records.map((r) => r.status)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
  });

  it("an author's ToolError is its message to the client: an isError result for tools/call, -32602 for a prompt and a completer", async () => {
    const { w } = setup();
    const tool = await w.modern('tools/call', { name: 'refuses', arguments: {} });
    expect(tool.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'not today' }] });
    expect((await w.modern('prompts/get', { name: 'refuses' })).error).toEqual({ code: -32602, message: 'not today' });
    const completion = await w.modern('completion/complete', { ref: { type: 'ref/prompt', name: 'broken' }, argument: { name: 'a', value: '' } });
    expect(completion.error).toEqual({ code: -32602, message: 'no suggestions today' });
  });

  it('a bug is hidden behind a correlation id the log and the audit record share', async () => {
    const { w, audit, logs } = setup();
    const res = await w.modern('prompts/get', { name: 'broken' });
    expect(res.error.code).toBe(-32603);
    expect(res.error.message).not.toMatch(/password/);
    const id = /correlation id ([0-9a-f-]+)/.exec(res.error.message)![1];
    expect(logs.find((l) => l.correlationId === id)?.err?.message).toBe('db password wrong');
    expect(audit.records[0]).toMatchObject({ status: 'internal_error', correlationId: id, errorCode: -32603 });
  });
});
