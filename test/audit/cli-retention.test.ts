import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queryAuditLog } from '../../src/audit/query.js';
import { databaseBytesInUse } from '../../src/audit/retention.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { ensureSchema, openDatabase } from '../../src/audit/sqlite-schema.js';
import { formatBytes, parseByteSize, runAuditPrune } from '../../src/cli/audit-prune.js';
import { runAudit } from '../../src/cli/audit.js';
import { UsageError } from '../../src/cli/errors.js';
import { tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

const DAY = 86_400_000;
const root = new URL('../../', import.meta.url).pathname;

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) } };
}

/**
 * A trail of `count` records `ageMs` old (request ids from `first`), ~330 bytes each, written
 * in one statement. `incremental`: made the way the sink makes new files (auto_vacuum
 * INCREMENTAL); false: the way files were made before retention existed.
 */
function trail(file: string, batches: Array<{ count: number; ageMs: number; first: number }>, incremental = true): void {
  const db = openDatabase(file);
  if (incremental) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  ensureSchema(db);
  const insert = db.prepare(`
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @count)
    INSERT INTO audit (time, era, protocol_version, tool, arguments, status, is_error, duration_ms, request_id, client_name)
    SELECT @time, 'modern', '2026-07-28', 'echo', '{"text":"' || printf('%.200c', 'x') || '"}', 'ok', 0, 1.5, @first + i, 'test-client' FROM n`);
  for (const batch of batches) insert.run({ count: batch.count, first: batch.first, time: new Date(Date.now() - batch.ageMs).toISOString() });
  db.close();
}

const ids = (file: string) => queryAuditLog(file, { limit: false }).map((r) => r.requestId);

describe('toolwright audit prune', () => {
  it('--older-than deletes the older records, keeps the younger, and says how many went', () => {
    const dir = tempDir('toolwright-prune-');
    const db = join(dir, 'audit.db');
    trail(db, [
      { count: 1200, ageMs: 10 * DAY, first: 0 },
      { count: 3, ageMs: DAY, first: 5000 },
    ]);
    const t = io();
    expect(runAuditPrune({ db, olderThan: '7d' }, t.io)).toBe(0);
    expect(t.out.join('')).toMatch(/^Removed 1,200 records \(1,200 older than \d{4}-\d\d-\d\dT[\d:.]+Z\)\.\naudit\.db: /);
    expect(t.err).toEqual([]);
    expect(ids(db)).toEqual([5000, 5001, 5002]);
  });

  it('--max-bytes deletes the oldest records until the rest fit, and the file shrinks', () => {
    const dir = tempDir('toolwright-prune-');
    const db = join(dir, 'audit.db');
    trail(db, [{ count: 6000, ageMs: DAY, first: 0 }]);
    const before = statSync(db).size;
    const t = io();
    expect(runAuditPrune({ db, maxBytes: '512k' }, t.io)).toBe(0);
    const removed = Number(/^Removed ([\d,]+) records/.exec(t.out.join(''))![1].replace(/,/g, ''));
    expect(t.out.join('')).toContain(`(${removed.toLocaleString('en-US')} to fit 512 KiB)`);
    const kept = ids(db);
    expect(kept).toEqual(Array.from({ length: 6000 - removed }, (_, i) => removed + i));
    const check = openDatabase(db, { readonly: true });
    expect(databaseBytesInUse(check)).toBeLessThanOrEqual(512 * 1024);
    check.close();
    expect(statSync(db).size).toBeLessThan(before / 2);
  });

  it('a prune that removes nothing reports nothing changed, also while a server holds records in the write-ahead log', async () => {
    const dir = tempDir('toolwright-prune-');
    const db = join(dir, 'audit.db');
    // A running server: its connection open, a batch of records committed to the -wal file, not yet checkpointed.
    const server = new SqliteAuditSink(db, { retention: false });
    try {
      await Promise.all(Array.from({ length: 300 }, (_, i) => server.record(auditRecord({ requestId: i }))));
      for (const round of [1, 2]) {
        const t = io();
        expect(runAuditPrune({ db, olderThan: '1000d' }, t.io)).toBe(0);
        const out = t.out.join('');
        expect(out, `round ${round}`).toMatch(
          /^Removed 0 records \(0 older than [^)]+\)\.\naudit\.db: [\d.]+ KiB of records \(unchanged\), file [\d.]+ KiB \(unchanged\)/,
        );
        expect(out).not.toContain('(was ');
      }
    } finally {
      server.close();
    }
    expect(ids(db)).toHaveLength(300);
  });

  it("without flags applies the config's policy; retention: false prunes nothing and says so", () => {
    const dir = tempDir('toolwright-prune-');
    trail(join(dir, 'trail.db'), [
      { count: 10, ageMs: 3 * DAY, first: 0 },
      { count: 2, ageMs: 0, first: 100 },
    ]);
    const config = join(dir, 'toolwright.config.json');
    writeFileSync(config, JSON.stringify({ server: { audit: { sqlite: 'trail.db', retention: { maxAgeDays: 2 } } } }));
    const t = io();
    expect(runAuditPrune({ config }, t.io)).toBe(0);
    expect(t.out.join('')).toMatch(/^Removed 10 records \(10 older than 2 days; 0 to fit 256 MiB\)\.\ntrail\.db: /);
    expect(ids(join(dir, 'trail.db'))).toEqual([100, 101]);

    writeFileSync(config, JSON.stringify({ server: { audit: { sqlite: 'trail.db', retention: false } } }));
    const off = io();
    expect(runAuditPrune({ config }, off.io)).toBe(0);
    expect(off.out.join('')).toMatch(/^Nothing pruned: the retention policy keeps every record/);
  });

  it('with no config, the default policy (30 days) applies to the default file', () => {
    const dir = tempDir('toolwright-prune-');
    const saved = { cwd: process.cwd(), auditDir: process.env.TOOLWRIGHT_AUDIT_DIR };
    process.env.TOOLWRIGHT_AUDIT_DIR = dir;
    process.chdir(dir);
    try {
      mkdirSync(join(dir, '.toolwright'));
      trail(join(dir, '.toolwright', 'audit.db'), [
        { count: 5, ageMs: 31 * DAY, first: 0 },
        { count: 1, ageMs: 29 * DAY, first: 50 },
      ]);
      const t = io();
      expect(runAuditPrune({}, t.io)).toBe(0);
      expect(t.out.join('')).toMatch(/^Removed 5 records \(5 older than 30 days; 0 to fit 256 MiB\)/);
      expect(ids(join(dir, '.toolwright', 'audit.db'))).toEqual([50]);
    } finally {
      process.chdir(saved.cwd);
      process.env.TOOLWRIGHT_AUDIT_DIR = saved.auditDir;
    }
  });

  it('a file made before incremental vacuum: pruned, told how to shrink it, and --vacuum shrinks and converts it', () => {
    const dir = tempDir('toolwright-prune-');
    const db = join(dir, 'audit.db');
    trail(
      db,
      [
        { count: 5000, ageMs: 40 * DAY, first: 0 },
        { count: 10, ageMs: 0, first: 9000 },
      ],
      false,
    );
    const t = io();
    expect(runAuditPrune({ db, olderThan: '30d' }, t.io)).toBe(0);
    expect(t.out.join('')).toContain('predates incremental vacuum');
    expect(t.out.join('')).toContain('toolwright audit prune --vacuum');
    const size = statSync(db).size;
    const v = io();
    expect(runAuditPrune({ db, olderThan: '30d', vacuum: true }, v.io)).toBe(0);
    expect(v.out.join('')).not.toContain('predates');
    expect(statSync(db).size).toBeLessThan(size / 10);
    const check = openDatabase(db, { readonly: true });
    expect(check.pragma('auto_vacuum', { simple: true })).toBe(2);
    check.close();
    expect(ids(db)).toHaveLength(10);
  });

  it('refuses what it cannot do: no database (exit 1), a trail the config turns off, bad flags', () => {
    const dir = tempDir('toolwright-prune-');
    const missing = io();
    expect(runAuditPrune({ db: join(dir, 'nope.db'), olderThan: '1d' }, missing.io)).toBe(1);
    expect(missing.err).toEqual(['toolwright: no audit log at nope.db\n']);

    const config = join(dir, 'toolwright.config.json');
    writeFileSync(config, JSON.stringify({ server: { audit: false } }));
    const off = io();
    expect(runAuditPrune({ config }, off.io)).toBe(1);
    expect(off.err.join('')).toMatch(/toolwright\.config\.json keeps no SQLite audit trail \(server\.audit: false\); pass --db/);

    for (const [options, message] of [
      [{ olderThan: 'last week' }, /--older-than must be a duration/],
      [{ maxBytes: '10' }, /--max-bytes must be a size of at least 64k/],
      [{ maxBytes: '-5M' }, /--max-bytes must be a size/],
    ] as const) {
      const t = io();
      expect(runAuditPrune({ db: join(dir, 'nope.db'), ...options }, t.io)).toBe(1);
      expect(t.err.join('')).toMatch(message);
    }
  });

  it('reads sizes in bytes or binary units', () => {
    expect(parseByteSize('65536')).toBe(65536);
    expect(parseByteSize('512k')).toBe(512 * 1024);
    expect(parseByteSize('256M')).toBe(256 * 1024 ** 2);
    expect(parseByteSize('1.5GiB')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize(' 2 GB ')).toBe(2 * 1024 ** 3);
    for (const bad of ['', 'M', '1e9', '0x100000', '1 MiB 2']) expect(() => parseByteSize(bad)).toThrow(UsageError);
    expect(formatBytes(268435456)).toBe('256 MiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });
});

describe('toolwright audit --json --all (export)', () => {
  it('streams every record in pieces of bounded size, each line one record with its id', async () => {
    const dir = tempDir('toolwright-export-');
    const db = join(dir, 'audit.db');
    trail(db, [{ count: 3000, ageMs: DAY, first: 0 }]);
    const t = io();
    expect(await runAudit({ db, json: true, all: true }, t.io)).toBe(0);
    expect(t.out.length).toBeGreaterThan(10); // handed over as it was read, not as one string
    for (const piece of t.out) expect(piece.length).toBeLessThan(64 * 1024 + 1024);
    const lines = t.out
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; requestId: number; arguments: unknown });
    expect(lines.map((l) => l.id)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(lines[0]).toMatchObject({ requestId: 0, arguments: { text: 'x'.repeat(200) } });
  });
});

/** The built CLI (`npm run build` first), its output collected. */
async function builtCli(args: string[], nodeArgs: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'dist', 'cli', 'main.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('the built CLI', () => {
  it('exports a trail larger than its heap may hold (constant memory), then prunes it', async () => {
    const dir = tempDir('toolwright-cli-retention-');
    const db = join(dir, 'audit.db');
    // ~40 MB of JSON lines; the CLI runs with 24 MB of old space, so it cannot hold them. (16 MB
    // left too little room once the CLI's own code grew past ~5 MB of heap: the OpenTelemetry API
    // is part of every command since tracing landed, and the export then ran out on a loaded machine.)
    trail(db, [
      { count: 90_000, ageMs: 40 * DAY, first: 0 },
      { count: 5, ageMs: 0, first: 100_000 },
    ]);
    const exported = await builtCli(['audit', '--db', db, '--json', '--all'], ['--max-old-space-size=24']);
    expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = exported.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(90_005);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ id: 90_005, requestId: 100_004 });

    const pruned = await builtCli(['audit', 'prune', '--db', db, '--older-than', '30d']);
    expect({ code: pruned.code, stderr: pruned.stderr }).toEqual({ code: 0, stderr: '' });
    expect(pruned.stdout).toMatch(/^Removed 90,000 records \(90,000 older than /);
    expect(ids(db)).toEqual([100_000, 100_001, 100_002, 100_003, 100_004]);
  });
});
