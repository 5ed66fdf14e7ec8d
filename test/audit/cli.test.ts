import { CommanderError } from 'commander';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { auditCommand } from '../../src/cli/audit-command.js';
import { runAudit } from '../../src/cli/audit.js';
import { sharedTempDir, tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

const NOW = new Date('2026-07-28T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
let dir: string;
let db: string;

beforeAll(async () => {
  const temp = sharedTempDir('toolwright-audit-cli-');
  dir = temp.dir;
  db = join(dir, 'audit.db');
  const sink = new SqliteAuditSink(db);
  await sink.record(auditRecord({ time: ago(2 * 86_400_000), tool: 'old_tool', requestId: 1 }));
  await sink.record(
    auditRecord({ time: ago(30 * 60_000), tool: 'echo', principal: 'alice', argumentsJson: '{"text":"hi","token":"[REDACTED]"}', requestId: 2 }),
  );
  await sink.record(auditRecord({ time: ago(20 * 60_000), tool: 'fetch', status: 'timeout', isError: true, durationMs: 60000.4, requestId: 3 }));
  await sink.record(auditRecord({ time: ago(10 * 60_000), tool: 'ghost', status: 'protocol_error', errorCode: -32602, requestId: 4 }));
  await sink.record(auditRecord({ time: ago(5 * 60_000), tool: 'evil\u001b[2J\u202etool', argumentsJson: '{"x":"\\u001b[31mred"}', requestId: 5 }));
  sink.close();
  return temp.remove;
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) } };
}

describe('toolwright audit', () => {
  it('prints a table of the calls, oldest first, with redacted arguments', async () => {
    const t = io();
    expect(await runAudit({ db }, t.io, NOW)).toBe(0);
    const lines = t.out.join('').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+TOOL\s+STATUS\s+MS\s+PRINCIPAL\s+CLIENT\s+ARGUMENTS$/);
    expect(lines).toHaveLength(6);
    expect(lines[1]).toContain('old_tool');
    expect(lines[2]).toMatch(/2026-07-28 11:30:00Z\s+echo\s+ok\s+1\.3\s+alice\s+test-client\s+\{"text":"hi","token":"\[REDACTED\]"\}/);
    expect(lines[3]).toMatch(/fetch\s+timeout\s+60000\s/);
    expect(lines[4]).toMatch(/ghost\s+protocol_error -32602/);
    expect(t.err).toEqual([]);
  });

  it('never lets client-chosen text reach the terminal as control sequences', async () => {
    const t = io();
    await runAudit({ db }, t.io, NOW);
    const text = t.out.join('');
    expect(text).not.toMatch(/[\u001b\u202e]/);
    expect(text).toMatch(/\beviltool\s/);
  });

  it('filters by tool, time and errors, and limits to the newest', async () => {
    const run = async (options: Parameters<typeof runAudit>[0]) => {
      const t = io();
      expect(await runAudit({ db, json: true, ...options }, t.io, NOW)).toBe(0);
      return t.out
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).requestId);
    };
    expect(await run({ tool: 'echo' })).toEqual([2]);
    expect(await run({ since: '1h' })).toEqual([2, 3, 4, 5]);
    expect(await run({ since: '2026-07-28T11:45:00Z' })).toEqual([4, 5]);
    expect(await run({ errors: true })).toEqual([3, 4]);
    expect(await run({ limit: '2' })).toEqual([4, 5]);
    expect(await run({ limit: '2', errors: true })).toEqual([3, 4]);
    expect(await run({ all: true, since: '1h' })).toEqual([2, 3, 4, 5]);
    expect(await run({ afterId: '3', all: true })).toEqual([4, 5]);
    expect(await run({ afterId: '3', limit: '1' })).toEqual([5]);
  });

  it('--json prints one object per line with the arguments as an object', async () => {
    const t = io();
    await runAudit({ db, json: true, tool: 'echo' }, t.io, NOW);
    expect(JSON.parse(t.out.join(''))).toEqual({
      id: 2,
      time: ago(30 * 60_000),
      era: 'modern',
      protocolVersion: '2026-07-28',
      principal: 'alice',
      tool: 'echo',
      arguments: { text: 'hi', token: '[REDACTED]' },
      status: 'ok',
      isError: false,
      durationMs: 1.25,
      correlationId: null,
      requestId: 2,
      clientName: 'test-client',
      errorCode: null,
    });
  });

  it('says so when nothing matches', async () => {
    const t = io();
    expect(await runAudit({ db, tool: 'nothing' }, t.io, NOW)).toBe(0);
    expect(t.out.join('')).toBe('No recorded calls match.\n');
  });

  it("a missing database is exit 1 (the path is the caller's to fix, not a connection failure) with one line and no absolute path", async () => {
    const t = io();
    expect(await runAudit({ db: join(dir, 'nowhere', 'audit.db') }, t.io, NOW)).toBe(1);
    expect(t.err).toHaveLength(1);
    expect(t.err[0]).toBe('toolwright: no audit log at audit.db\n');
    expect(t.err[0]).not.toContain(dir);
  });

  it('a file that is not a database is exit 2 with one line, no stack and no absolute path', async () => {
    const t = io();
    expect(await runAudit({ db: join(import.meta.dirname, 'cli.test.ts') }, t.io, NOW)).toBe(2);
    expect(t.err.join('')).toMatch(/^toolwright: [^\n]*\n$/);
    expect(t.err.join('')).not.toContain(import.meta.dirname);
    expect(t.err.join('')).not.toMatch(/\bat .*:\d+:\d+/);
  });

  it.each([
    [{ since: 'yesterday' }, /--since must be a duration/],
    [{ limit: '0' }, /--limit must be a positive integer/],
    [{ limit: 'ten' }, /--limit must be a positive integer/],
    [{ all: true }, /--all needs --json/],
    [{ all: true, json: true, limit: '5' }, /choose one of --all and --limit/],
    [{ afterId: '-1' }, /--after-id must be a record id/],
    [{ afterId: '1e3' }, /--after-id must be a record id/],
  ])('bad option %j is a usage error (exit 1)', async (options, message) => {
    const t = io();
    expect(await runAudit({ db, ...options }, t.io, NOW)).toBe(1);
    expect(t.err.join('')).toMatch(message);
  });

  it('runs as a commander command, handing its exit code over', async () => {
    const t = io();
    let code = -1;
    await auditCommand(t.io, (c) => (code = c)).parseAsync(['--db', db, '--tool', 'fetch', '--errors', '--json', '--limit', '5'], { from: 'user' });
    expect(code).toBe(0);
    expect(JSON.parse(t.out.join(''))).toMatchObject({ tool: 'fetch', status: 'timeout', isError: true });
  });

  it('an unknown option throws a CommanderError instead of exiting the process', async () => {
    const t = io();
    await expect(auditCommand(t.io, () => {}).parseAsync(['--bogus'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    expect(t.err.join('')).toMatch(/unknown option '--bogus'/);
  });
});

describe('toolwright audit without --db', () => {
  it('reads .toolwright/audit.db in a project directory, and says where servers write it when missing', async () => {
    const project = tempDir('toolwright-audit-cwd-');
    writeFileSync(join(project, 'package.json'), '{}');
    expect(await auditWithoutAuditDir(project)).toBe(
      'toolwright: no audit log at .toolwright/audit.db (a server started in this directory writes it once it has served a call)\n',
    );
  });

  it('outside a project, reads the trail in the per-user state dir, where a server started there writes it', async () => {
    // The CLI's messages carry no absolute paths (scrubPaths): the hint says which folder it is.
    expect(await auditWithoutAuditDir(tempDir('toolwright-audit-cwd-'))).toBe(
      'toolwright: no audit log at audit.db (a server started in this directory writes it once it has served a call, in the per-user state dir: this directory is not a project)\n',
    );
  });
});

/** What `toolwright audit` says, run in `dir` with no $TOOLWRIGHT_AUDIT_DIR, where there is no trail yet. */
async function auditWithoutAuditDir(dir: string): Promise<string> {
  const t = io();
  const cwd = process.cwd();
  const auditDir = process.env.TOOLWRIGHT_AUDIT_DIR;
  delete process.env.TOOLWRIGHT_AUDIT_DIR;
  process.chdir(dir);
  try {
    expect(await runAudit({}, t.io, NOW)).toBe(1);
  } finally {
    process.chdir(cwd);
    process.env.TOOLWRIGHT_AUDIT_DIR = auditDir;
  }
  return t.err.join('');
}
