import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { ToolClient } from '../../src/client.js';
import { auditRecord } from '../audit/records.js';
import { auditEnv } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';

// CI's second leg (scripts/test-on-lts.mjs) runs the suite under the newest Node LTS and says so
// in $TOOLWRIGHT_TEST_NODE_MAJOR. These pin that the leg is what it says: the workers, and the
// `node` every test or CLI starts, are that Node (a leg quietly run under the floor's Node would
// pass everything and prove nothing), and the SQLite trail works there, on better-sqlite3 built
// for its ABI. Under plain `npm test` they are skipped.
const ltsMajor = process.env.TOOLWRIGHT_TEST_NODE_MAJOR;

describe.skipIf(!ltsMajor)(`the LTS leg (Node ${ltsMajor ?? '-'})`, () => {
  it('runs the tests, and every `node` they start, under that Node', () => {
    expect(process.versions.node.split('.')[0]).toBe(ltsMajor);
    expect(execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()).toBe(process.versions.node);
  });

  it('keeps a SQLite audit trail there (better-sqlite3 built for its ABI)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-lts-sqlite-'));
    try {
      const sink = new SqliteAuditSink(join(dir, 'audit.db'));
      await sink.record(auditRecord({ tool: 'calculate_sum' }));
      sink.close();
      const out = execFileSync(process.execPath, ['dist/cli/main.js', 'audit', '--db', join(dir, 'audit.db'), '--json'], { encoding: 'utf8' });
      expect(out).toContain('calculate_sum');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Issue 33: the redirect to that build reaches a process through NODE_OPTIONS, and a stdio client
  // passes a server only a few safe variables (PATH, HOME, …) plus the `env` it is given: the
  // leg's first run had every such server load the floor's build and exit 1 at start.
  it('keeps a SQLite trail in a server a stdio client starts with the env auditEnv() gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-lts-stdio-'));
    try {
      const server = fileURLToPath(new URL('../fixtures/client/stdio-toolwright.ts', import.meta.url));
      const target = { command: process.execPath, args: tsProgram(server), stderr: 'capture' as const, env: { ...auditEnv(), TOOLWRIGHT_AUDIT_DIR: dir } };
      const client = await ToolClient.connect(target, { onWarning: () => {} });
      try {
        expect((await client.callTool('add', { a: 20, b: 22 })).structuredContent).toEqual({ sum: 42 });
      } finally {
        await client.close();
      }
      const out = execFileSync(process.execPath, ['dist/cli/main.js', 'audit', '--db', join(dir, '.toolwright', 'audit.db'), '--json'], { encoding: 'utf8' });
      expect(out).toContain('"add"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
