import { describe, expect, it } from 'vitest';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { AUDIT_UNAVAILABLE, AuditGuard, type AuditFailurePolicy } from '../../src/server/pipeline/audit-guard.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair } from '../../src/testing.js';
import { BreakableSink } from '../helpers/breakable-sink.js';
import { memoryLogger } from '../helpers/wire.js';

// The trail is a BreakableSink: a file that stops being writable while the server runs cannot be
// made for real in a test running as root (the start-up check is tested on a real ENOTDIR in
// test/cli/serve-state.test.ts).

async function setup(auditFailure?: AuditFailurePolicy) {
  const sink = new BreakableSink();
  const log = memoryLogger();
  let ran = 0;
  const server = new ToolServer({
    logger: log.logger,
    audit: sink,
    ...(auditFailure ? { auditFailure } : {}),
    tools: [{ name: 'work', description: 'Counts its runs.', inputSchema: { type: 'object' }, handler: () => `run ${++ran}` }],
    prompts: [definePrompt({ name: 'hello', description: 'Says hello.', get: () => 'hello' })],
  });
  const pair = await createInMemoryPair(server);
  return { sink, log, server, client: pair.client, runs: () => ran, close: async () => (await pair.close(), server.close()) };
}

describe('when the audit trail cannot be written', () => {
  it('by default (refuse): the call whose record failed is answered, later requests are refused with -32603 without running, until the trail is back', async () => {
    const s = await setup();
    expect((await s.client.callTool('work', {})).content[0]).toMatchObject({ text: 'run 1' });
    s.sink.broken = true;
    // It ran already: its answer goes out (hiding it would invite a repeat), its record is lost.
    expect((await s.client.callTool('work', {})).content[0]).toMatchObject({ text: 'run 2' });
    const refused = await s.client.callTool('work', {}).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: -32603, message: AUDIT_UNAVAILABLE });
    await expect(s.client.getPrompt('hello')).rejects.toMatchObject({ code: -32603, message: AUDIT_UNAVAILABLE });
    expect(s.runs()).toBe(2);
    expect(s.server.auditGuard).toMatchObject({ lost: 1, refused: 2 });
    s.sink.broken = false;
    // The trail is tried again at most once a second: the first request after that runs.
    await expect
      .poll(async () => (await s.client.callTool('work', {}).catch(() => undefined))?.content[0], { timeout: 10_000, interval: 200 })
      .toMatchObject({ text: 'run 3' });
    expect(s.sink.records.map((r) => r.tool)).toEqual(['work', 'work']);
    // One line when it went down, one when it came back; no stack trace, nothing per call.
    expect(s.log.records.map((r) => [r.level, r.msg])).toEqual([
      ['error', expect.stringMatching(/^audit trail unavailable: a record could not be written/)],
      ['warn', 'audit trail: writable again; serving requests'],
    ]);
    expect(s.log.records[0]).toMatchObject({ error: 'database or disk is full (SQLITE_FULL)' });
    expect(JSON.stringify(s.log.records)).not.toContain('    at ');
    await s.close();
  });

  it('while the trail is down, it is tried again at most once a second, however many requests come', () => {
    const sink = new BreakableSink();
    let probes = 0;
    const probe = sink.probe.bind(sink);
    sink.probe = () => (probes++, probe());
    let clock = 0;
    const guard = new AuditGuard(sink, 'refuse', memoryLogger().logger, () => clock);
    sink.broken = true;
    guard.failed(new Error('database or disk is full'), 'work', 1);
    const refusedNow = () => {
      try {
        guard.admit();
        return false;
      } catch {
        return true;
      }
    };
    for (let i = 0; i < 50; i++) expect(refusedNow()).toBe(true);
    expect(probes).toBe(0);
    clock = 1_000;
    for (let i = 0; i < 50; i++) expect(refusedNow()).toBe(true);
    expect(probes).toBe(1);
    sink.broken = false;
    expect(refusedNow()).toBe(true); // within a second of the last try
    clock = 2_000;
    expect(refusedNow()).toBe(false);
    expect(probes).toBe(2);
    expect(guard).toMatchObject({ lost: 1, refused: 101 });
  });

  it('with "warn": every request is served, one warning, and the lost records are counted', async () => {
    const s = await setup('warn');
    s.sink.broken = true;
    for (let i = 1; i <= 3; i++) expect((await s.client.callTool('work', {})).content[0]).toMatchObject({ text: `run ${i}` });
    expect(await s.client.getPrompt('hello')).toBeDefined();
    expect(s.server.auditGuard).toMatchObject({ lost: 4, refused: 0 });
    expect(s.log.records).toHaveLength(1);
    expect(s.log.records[0]).toMatchObject({ level: 'warn', error: 'database or disk is full (SQLITE_FULL)' });
    expect(JSON.stringify(s.log.records)).not.toContain('    at ');
    await s.close();
  });
});
