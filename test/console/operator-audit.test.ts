import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/audit/redact.js';
import type { AuditReader } from '../../src/audit/reader.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { auditSummary, OperatorQueryError, operatorSources, queryAuditRecords, runningTasks } from '../../src/console/operator/index.js';
import { ToolServer } from '../../src/server/server.js';
import { ToolError, type Tool } from '../../src/server/tool.js';
import { tempDir } from '../helpers/temp.js';
import { memoryLogger, wire } from '../helpers/wire.js';

const SECRET = 'sk-live-do-not-show-0123456789';

const login: Tool = {
  name: 'login',
  description: 'Logs in.',
  inputSchema: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } }, required: ['user'] },
  handler: ({ user }) => {
    if (user === 'mallory') throw new ToolError('no such user');
    return `hello ${user}`;
  },
};
const echo: Tool = {
  name: 'echo',
  description: 'Echoes.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  handler: ({ text }) => String(text),
};

/** A real server writing a real SQLite trail: 3 logins (one fails) and 2 echoes; read through operatorSources. */
async function trail(): Promise<AuditReader> {
  const file = join(tempDir('toolwright-operator-'), 'audit.db');
  const server = new ToolServer({ logger: memoryLogger().logger, tools: [login, echo], audit: new SqliteAuditSink(file) });
  const { modern } = wire(server);
  for (const user of ['alice', 'bob', 'mallory']) await modern('tools/call', { name: 'login', arguments: { user, password: SECRET } });
  for (const text of ['one', 'two']) await modern('tools/call', { name: 'echo', arguments: { text } });
  const sources = operatorSources(server);
  server.close();
  expect(await runningTasks(sources.tasks!)).toEqual([]);
  return sources.openAuditReader!();
}

describe('operator audit queries', () => {
  it('filters by tool and outcome, pages with afterId, caps the limit, and keeps arguments redacted', async () => {
    const reader = await trail();
    const all = await queryAuditRecords(reader, {});
    expect(all.map((r) => r.tool)).toEqual(['login', 'login', 'login', 'echo', 'echo']);
    for (const record of all) expect(JSON.stringify(record)).not.toContain(SECRET);
    expect(JSON.parse(all[0].argumentsJson)).toEqual({ user: 'alice', password: REDACTED });
    expect((await queryAuditRecords(reader, { tool: 'echo' })).map((r) => JSON.parse(r.argumentsJson).text)).toEqual(['one', 'two']);
    const errors = await queryAuditRecords(reader, { outcome: 'error' });
    expect(errors.map((r) => JSON.parse(r.argumentsJson).user)).toEqual(['mallory']);
    expect(await queryAuditRecords(reader, { caller: 'nobody' })).toEqual([]);
    // The newest 2, then what came after a cursor (query strings: numbers arrive as text).
    expect((await queryAuditRecords(reader, { limit: '2' })).map((r) => r.id)).toEqual(all.slice(3).map((r) => r.id));
    expect((await queryAuditRecords(reader, { afterId: String(all[2].id) })).map((r) => r.id)).toEqual(all.slice(3).map((r) => r.id));
    // The page before a cursor (the console's "Older records"): the newest N stored before it, none skipped.
    expect((await queryAuditRecords(reader, { beforeId: String(all[3].id), limit: '2' })).map((r) => r.id)).toEqual(all.slice(1, 3).map((r) => r.id));
    expect((await queryAuditRecords(reader, { beforeId: String(all[1].id), limit: '2' })).map((r) => r.id)).toEqual([all[0].id]);
    expect(await queryAuditRecords(reader, { limit: 1_000_000 })).toHaveLength(5);
    expect(await queryAuditRecords(reader, { since: '2000-01-01', until: '2000-01-02' })).toEqual([]);
  });

  it('refuses hostile filter values with a clear message', async () => {
    const reader = await trail();
    const refused = [
      [{ since: 'yesterday' }, /since must be an ISO 8601 date/],
      [{ until: '2026-13-45' }, /until must be an ISO 8601 date/],
      [{ since: '2026-02-01', until: '2026-01-01' }, /since is after until/],
      [{ tool: ['a', 'b'] }, /tool must be a string/],
      [{ caller: 'x'.repeat(10_000) }, /caller is longer than 256/],
      [{ limit: '-1' }, /limit must be a positive integer/],
      [{ limit: '1e9' }, /limit must be a positive integer/],
      [{ afterId: { $gt: 0 } }, /afterId must be a positive integer/],
      [{ beforeId: '0 OR 1=1' }, /beforeId must be a positive integer/],
      [{ outcome: "ok' OR 1=1" }, /outcome must be/],
    ] as const;
    for (const [filter, message] of refused) {
      const failure = queryAuditRecords(reader, filter);
      await expect(failure).rejects.toBeInstanceOf(OperatorQueryError);
      await expect(failure).rejects.toThrow(message);
    }
    await expect(auditSummary(reader, { since: 'now', until: '2026-01-01' })).rejects.toThrow(/since must be an ISO 8601 date/);
    await expect(auditSummary(reader, { since: '2026-01-01', until: '2026-01-02', buckets: 10_000 })).rejects.toThrow(/buckets must be/);
  });

  it('summarises calls and errors per bucket and latency per tool', async () => {
    const reader = await trail();
    const all = await queryAuditRecords(reader, {});
    const since = new Date(Date.parse(all[0].time) - 60_000);
    const until = new Date(Date.parse(all[4].time) + 60_000);
    const summary = await auditSummary(reader, { since: since.toISOString(), until: until.toISOString(), buckets: 2 });
    expect(summary.buckets).toHaveLength(2);
    expect(summary.buckets[0].start).toBe(since.toISOString());
    expect(summary.buckets.reduce((n, b) => n + b.calls, 0)).toBe(5);
    expect(summary.buckets.reduce((n, b) => n + b.errors, 0)).toBe(1);
    expect(summary.latency.map((l) => [l.tool, l.count])).toEqual([
      ['echo', 2],
      ['login', 3],
    ]);
    for (const l of summary.latency) {
      const durations = all
        .filter((r) => r.tool === l.tool)
        .map((r) => r.durationMs)
        .sort((a, b) => a - b);
      expect(l.max).toBe(durations[durations.length - 1]);
      expect(l.p50).toBe(durations[Math.ceil(durations.length / 2) - 1]);
      expect(l.p95).toBe(l.max);
    }
  });
});
