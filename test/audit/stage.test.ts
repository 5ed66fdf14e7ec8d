import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AuditRecord, AuditSink } from '../../src/audit/record.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import type { CallInfo } from '../../src/server/pipeline/operation.js';
import { RequestStateCodec } from '../../src/server/inputs/request-state.js';
import type { Exchange } from '../../src/server/exchange.js';
import { Peer } from '../../src/server/peer.js';
import { auditStep } from '../../src/server/pipeline/audit.js';
import { AUDIT_UNAVAILABLE, AuditGuard, type AuditFailurePolicy } from '../../src/server/pipeline/audit-guard.js';
import { Operation, type CallOutcome } from '../../src/server/pipeline/operation.js';
import { compose } from '../../src/server/compose.js';
import { inputsStage } from '../../src/server/pipeline/inputs.js';
import { readArgumentsStage, resolveStage } from '../../src/server/pipeline/resolve.js';
import { runOperation, TOOL_RUN } from '../../src/server/pipeline/run.js';
import { validateArgsStage } from '../../src/server/pipeline/validate-args.js';
import { ToolRegistry } from '../../src/server/registry.js';
import { ToolError } from '../../src/server/tool.js';

const registry = new ToolRegistry().add(
  {
    name: 'login',
    description: 'Takes a user, a password and a one-time pin.',
    inputSchema: {
      type: 'object',
      properties: { user: { type: 'string' }, password: { type: 'string' }, pin: { type: 'string', 'x-sensitive': true } },
      required: ['user'],
    },
    handler: ({ user }) => `hello ${user}`,
  },
  {
    name: 'fail',
    description: 'Fails.',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new ToolError('upstream said no');
    },
  },
  {
    name: 'crash',
    description: 'Has a bug.',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new TypeError('x is undefined');
    },
  },
  {
    name: 'slow',
    description: 'Outlives its timeout.',
    inputSchema: { type: 'object' },
    timeoutMs: 20,
    handler: () => new Promise((r) => setTimeout(() => r('late'), 500)),
  },
  {
    name: 'wait',
    description: 'Runs until cancelled.',
    inputSchema: { type: 'object' },
    handler: (_a, ctx) => new Promise((r) => ctx.signal.addEventListener('abort', () => r('stopped'))),
  },
);

function harness(sink: AuditSink, policy: AuditFailurePolicy = 'refuse') {
  const logs: Array<Record<string, any>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const run = compose(
    [
      auditStep<CallOutcome>(sink, new AuditGuard(sink, policy, logger)),
      resolveStage(registry),
      readArgumentsStage,
      validateArgsStage,
      inputsStage(new RequestStateCodec('k', 60_000)),
    ],
    (op) => runOperation(op, TOOL_RUN, { logger, timeoutMs: 5_000 }),
  );
  const info: CallInfo = {
    era: 'modern',
    protocolVersion: '2026-07-28',
    clientCapabilities: {},
    clientInfo: { name: 'inspector', version: '1' },
    requestId: 'r-1',
  };
  const exchange: Exchange = { peer: new Peer('memory'), notify: () => {}, principal: 'alice' };
  const call = (params: Record<string, unknown>) => new Operation(params, info, exchange);
  return { run, call, logs };
}

function memorySink() {
  const records: AuditRecord[] = [];
  return { records, record: (entry: AuditRecord) => void records.push(entry) };
}

describe('the audit stage', () => {
  it('records a successful call with every field, secrets redacted by key and by schema', async () => {
    const sink = memorySink();
    const { run, call } = harness(sink);
    const result = await run(call({ name: 'login', arguments: { user: 'ada', password: 'hunter2', pin: '1234' } }));
    expect(result).toMatchObject({ content: [{ text: 'hello ada' }] });
    expect(sink.records).toHaveLength(1);
    const [entry] = sink.records;
    expect(entry).toEqual({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      era: 'modern',
      protocolVersion: '2026-07-28',
      principal: 'alice',
      tool: 'login',
      argumentsJson: '{"user":"ada","password":"[REDACTED]","pin":"[REDACTED]"}',
      status: 'ok',
      isError: false,
      durationMs: expect.any(Number),
      correlationId: null,
      requestId: 'r-1',
      clientName: 'inspector',
      errorCode: null,
    });
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
  });

  it.each([
    ['fail', {}, 'tool_error'],
    ['login', { user: 42 }, 'invalid_arguments'],
    ['slow', {}, 'timeout'],
  ])('records %s as an isError result with status %s', async (name, args, status) => {
    const sink = memorySink();
    const { run, call } = harness(sink);
    const result = await run(call({ name, arguments: args }));
    expect(result).toMatchObject({ isError: true });
    expect(sink.records).toEqual([expect.objectContaining({ tool: name, status, isError: true })]);
  });

  it('records an internal error with the correlation id the client saw', async () => {
    const sink = memorySink();
    const { run, call } = harness(sink);
    const result = (await run(call({ name: 'crash', arguments: {} }))) as { content: Array<{ text: string }> };
    const [entry] = sink.records;
    expect(entry).toMatchObject({ status: 'internal_error', isError: true });
    expect(entry.correlationId).toMatch(/[0-9a-f-]{36}/);
    expect(result.content[0].text).toContain(entry.correlationId);
  });

  it('records an unknown tool as a protocol error, then rethrows it unchanged', async () => {
    const sink = memorySink();
    const { run, call } = harness(sink);
    const err = await run(call({ name: 'no_such_tool', arguments: { token: 't' } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe(-32602);
    expect(sink.records).toEqual([
      expect.objectContaining({ tool: 'no_such_tool', status: 'protocol_error', isError: false, errorCode: -32602, argumentsJson: '{}' }),
    ]);
  });

  it('records a cancelled call (which answers nothing)', async () => {
    const sink = memorySink();
    const { run, call } = harness(sink);
    const c = call({ name: 'wait', arguments: {} });
    const pending = run(c);
    setTimeout(() => c.abort(new Error('cancelled by client')), 10);
    expect(await pending).toBeUndefined();
    expect(sink.records).toEqual([expect.objectContaining({ tool: 'wait', status: 'cancelled', isError: false })]);
  });

  it("under 'warn', a throwing sink never fails the call: one warning (no stack trace), later losses only counted", async () => {
    const sink = {
      record: () => {
        throw new Error('disk I/O error');
      },
    };
    const { run, call, logs } = harness(sink, 'warn');
    for (let i = 0; i < 3; i++) {
      expect(await run(call({ name: 'login', arguments: { user: 'ada' } }))).toMatchObject({ content: [{ text: 'hello ada' }] });
    }
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: 40, error: 'disk I/O error', request: 'login' });
    expect(logs[0].err).toBeUndefined();
  });

  it("under 'warn', a rejecting asynchronous sink never fails the call either, and does not hide a protocol error", async () => {
    const { run, call, logs } = harness({ record: () => Promise.reject(new Error('collector unreachable')) }, 'warn');
    expect(await run(call({ name: 'login', arguments: { user: 'ada' } }))).toMatchObject({ content: [{ text: 'hello ada' }] });
    await expect(run(call({ name: 'nope' }))).rejects.toBeInstanceOf(RpcError);
    expect(logs.some((l) => l.error === 'collector unreachable')).toBe(true);
  });

  it("under 'refuse' (the default), the call whose record failed keeps its answer; the next is refused with -32603 before it runs", async () => {
    const { run, call, logs } = harness({ record: () => Promise.reject(new Error('collector unreachable')) });
    expect(await run(call({ name: 'login', arguments: { user: 'ada' } }))).toMatchObject({ content: [{ text: 'hello ada' }] });
    await expect(run(call({ name: 'login', arguments: { user: 'bob' } }))).rejects.toMatchObject({ code: -32603, message: AUDIT_UNAVAILABLE });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: 50, error: 'collector unreachable' });
  });

  it('waits for an asynchronous sink before the result is returned (so before the reply is written)', async () => {
    const order: string[] = [];
    const sink: AuditSink = { record: () => new Promise<void>((r) => setTimeout(() => (order.push('recorded'), r()), 30)) };
    const { run, call } = harness(sink);
    await run(call({ name: 'login', arguments: { user: 'ada' } })).then((outcome: CallOutcome) => order.push(outcome ? 'returned' : 'nothing'));
    expect(order).toEqual(['recorded', 'returned']);
  });

  it('caps a hostile tool name in the record', async () => {
    const sink = memorySink();
    const { run, call } = harness(sink);
    await run(call({ name: 'x'.repeat(10_000) })).catch(() => undefined);
    expect(sink.records[0].tool.length).toBeLessThanOrEqual(257);
  });
});
