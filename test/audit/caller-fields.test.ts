import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queryAuditLog } from '../../src/audit/query.js';
import { openDatabase } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { runAudit } from '../../src/cli/audit.js';
import { tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

/** The table as toolwright wrote it before the caller's columns (schema version 2). */
function versionTwoFile(file: string): void {
  const db = openDatabase(file);
  db.exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY, time TEXT NOT NULL, era TEXT NOT NULL, protocol_version TEXT NOT NULL, principal TEXT,
    tool TEXT NOT NULL, arguments TEXT NOT NULL, status TEXT NOT NULL, is_error INTEGER NOT NULL, duration_ms REAL NOT NULL, correlation_id TEXT,
    request_id, client_name TEXT, error_code INTEGER, method TEXT NOT NULL DEFAULT 'tools/call')`);
  db.prepare(
    "INSERT INTO audit (time, era, protocol_version, principal, tool, arguments, status, is_error, duration_ms, request_id) VALUES (?, 'modern', '2026-07-28', 'old-alice', 'echo', '{}', 'ok', 0, 1, 1)",
  ).run(new Date().toISOString());
  db.pragma('user_version = 2');
  db.close();
}

function io() {
  const out: string[] = [];
  return { out, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) } };
}

describe("the caller's client id, scopes and tenant in the SQLite trail", () => {
  it('are kept as written and read back; a record without them reads back without them', async () => {
    const file = join(tempDir('tw-audit-caller-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    await sink.record(auditRecord({ principal: 'alice', clientId: 'agent', scopes: ['tools:read', 'reports'], tenant: 'acme', requestId: 1 }));
    await sink.record(auditRecord({ principal: 'bob', requestId: 2 }));
    sink.close();
    const [first, second] = queryAuditLog(file);
    expect(first).toMatchObject({ principal: 'alice', clientId: 'agent', scopes: ['tools:read', 'reports'], tenant: 'acme' });
    expect(second).toEqual(auditRecord({ principal: 'bob', requestId: 2, time: second.time }));
  });

  it('a version 2 file gains the columns when a server writes to it, and keeps its rows', async () => {
    const file = join(tempDir('tw-audit-caller-'), 'audit.db');
    versionTwoFile(file);
    // Read before any server opened it: a filter on a column it lacks matches nothing, and says nothing is wrong.
    expect(queryAuditLog(file, { clientId: 'agent' })).toEqual([]);
    expect(queryAuditLog(file, { principal: 'old-alice' })).toHaveLength(1);
    const sink = new SqliteAuditSink(file);
    await sink.record(auditRecord({ principal: 'alice', clientId: 'agent', scopes: [], requestId: 2 }));
    sink.close();
    const rows = queryAuditLog(file);
    expect(rows.map((r) => [r.principal, r.clientId, r.scopes])).toEqual([
      ['old-alice', undefined, undefined],
      ['alice', 'agent', []],
    ]);
    const db = openDatabase(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    db.close();
  });
});

describe('toolwright audit by caller', () => {
  it('filters by --caller, --client-id and --tenant, and shows tenant/id (client) in the table', async () => {
    const db = join(tempDir('tw-audit-caller-'), 'audit.db');
    const sink = new SqliteAuditSink(db);
    await sink.record(auditRecord({ principal: 'alice', clientId: 'agent', tenant: 'acme', requestId: 1 }));
    await sink.record(auditRecord({ principal: 'alice', clientId: 'other-app', tenant: 'globex', requestId: 2 }));
    await sink.record(auditRecord({ principal: 'bob', clientId: 'agent', requestId: 3 }));
    sink.close();
    const ids = async (options: Record<string, string>) => {
      const t = io();
      expect(await runAudit({ db, json: true, ...options }, t.io)).toBe(0);
      return t.out
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).requestId);
    };
    expect(await ids({ caller: 'alice' })).toEqual([1, 2]);
    expect(await ids({ clientId: 'agent' })).toEqual([1, 3]);
    expect(await ids({ tenant: 'globex' })).toEqual([2]);
    expect(await ids({ caller: 'alice', clientId: 'agent' })).toEqual([1]);
    const t = io();
    await runAudit({ db, caller: 'alice', tenant: 'acme' }, t.io);
    expect(t.out.join('')).toMatch(/\bacme\/alice \(agent\)\s/);
  });
});
