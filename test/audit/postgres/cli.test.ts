import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltCli } from '../../helpers/cli-process.js';
import { runCliCaptured } from '../../helpers/cli.js';
import { PG_BIN, TestPostgres } from '../../helpers/postgres.js';
import { tempDir } from '../../helpers/temp.js';
import { modernMeta } from '../../helpers/wire.js';

// `toolwright serve` and `toolwright audit` (built: run `npm run build` first) on a real PostgreSQL.
let db: TestPostgres;
beforeAll(async () => {
  db = await TestPostgres.create();
}, 60_000);
afterAll(() => db?.destroy());

/** A project whose config keeps its trail in PostgreSQL, the URL (with a password, which trust authentication ignores) from the environment. */
async function project() {
  const dir = tempDir('toolwright-pg-cli-');
  const database = await db.database();
  const url = database.replace('postgres@', 'postgres:hunter2@');
  writeFileSync(join(dir, 'toolwright.config.json'), JSON.stringify({ server: { audit: { postgres: '${TW_TEST_AUDIT_URL}' } }, toolsets: { math: {} } }));
  return { dir, url, env: { TW_TEST_AUDIT_URL: url, TOOLWRIGHT_LOG_LEVEL: 'silent' } };
}

const sum = (id: number) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'calculate_sum', arguments: { a: id, b: 1 }, _meta: modernMeta() } })}\n`;

/** `serve --stdio` in the project; SIGKILLed once `answers` answers have arrived (the moment the last one is read). */
async function serveAndKill(p: Awaited<ReturnType<typeof project>>, calls: number, answers: number) {
  const serve = startBuiltCli(['serve', '--stdio'], { cwd: p.dir, env: p.env });
  await serve.waitForStderr(/audit trail: postgres:\/\//);
  const answered: number[] = [];
  let buffer = '';
  serve.child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const msg = JSON.parse(buffer.slice(0, nl)) as { id: number };
      buffer = buffer.slice(nl + 1);
      if (answered.length < answers) answered.push(msg.id);
      if (answered.length === answers) serve.child.kill('SIGKILL');
    }
  });
  serve.child.stdin.write(Array.from({ length: calls }, (_, i) => sum(i + 1)).join(''));
  expect((await serve.exit).signal).toBe('SIGKILL');
  return { answered, stderr: serve.stderr() };
}

describe.skipIf(!PG_BIN)('toolwright with server.audit.postgres', () => {
  it('a SIGKILL right after the answers keeps every answered call in PostgreSQL; the URL says no password', async () => {
    const p = await project();
    const { answered, stderr } = await serveAndKill(p, 40, 15);
    expect(stderr).toMatch(new RegExp(`audit trail: postgres://127\\.0\\.0\\.1:${db.port}/t\\d+\\n`));
    expect(stderr).not.toContain('hunter2');
    const stored = (await db.query('SELECT request_id FROM toolwright_audit', [], p.url)).rows.map((r) => r.request_id as number);
    expect(stored).toEqual(expect.arrayContaining(answered));
    expect(new Set(stored).size).toBe(stored.length);
  }, 60_000);

  it('serve ends cleanly when stdin closes (exit 0), its records in PostgreSQL', async () => {
    const p = await project();
    const serve = startBuiltCli(['serve', '--stdio'], { cwd: p.dir, env: p.env });
    await serve.waitForStderr(/audit trail: postgres:\/\//);
    serve.child.stdin.write(sum(1));
    await expect.poll(serve.stdout, { timeout: 20_000 }).toContain('"id":1');
    serve.child.stdin.end();
    expect(await serve.exit).toEqual({ code: 0, signal: null });
    expect((await db.query('SELECT count(*)::int AS n FROM toolwright_audit', [], p.url)).rows[0].n).toBe(1);
  }, 60_000);

  it('toolwright audit reads it (filters, --json) through the config, and audit prune prunes it', async () => {
    const p = await project();
    await serveAndKill(p, 3, 3);
    await db.query("UPDATE toolwright_audit SET time = now() - interval '40 days', principal = 'old' WHERE request_id = '1'::jsonb", [], p.url);
    const saved = process.env.TW_TEST_AUDIT_URL;
    process.env.TW_TEST_AUDIT_URL = p.url;
    const cwd = process.cwd();
    process.chdir(p.dir);
    try {
      const listed = await runCliCaptured('audit', '--json');
      expect(listed.stderr).toBe('');
      const lines = listed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.tool, l.requestId, l.arguments])).toEqual([
        ['calculate_sum', 1, { a: 1, b: 1 }],
        ['calculate_sum', 2, { a: 2, b: 1 }],
        ['calculate_sum', 3, { a: 3, b: 1 }],
      ]);
      expect((await runCliCaptured('audit', '--json', '--since', '1d')).stdout.trim().split('\n')).toHaveLength(2);
      expect((await runCliCaptured('audit', '--json', '--caller', 'old')).stdout).toContain('"requestId":1,');
      expect(
        (await runCliCaptured('audit', '--json', '--after-id', String(lines[1].id))).stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).requestId),
      ).toEqual([3]);
      expect((await runCliCaptured('audit', '--limit', '1')).stdout).toMatch(/calculate_sum\s+ok/);

      const pruned = await runCliCaptured('audit', 'prune');
      expect(pruned).toMatchObject({ code: 0, stderr: '' });
      expect(pruned.stdout).toMatch(
        /^Removed 1 record \(1 older than 30 days; 0 beyond the newest 1,000,000\) from postgres:\/\/127\.0\.0\.1:\d+\/t\d+; 2 remain\.\n$/,
      );
      const byRows = await runCliCaptured('audit', 'prune', '--db', p.url, '--max-rows', '1');
      expect(byRows.stdout).toMatch(/^Removed 1 record \(1 beyond the newest 1\)/);
      expect(byRows.stdout + byRows.stderr).not.toContain('hunter2');
      const unreachable = await runCliCaptured('audit', '--db', 'postgres://postgres:hunter2@127.0.0.1:1/nowhere');
      expect(unreachable).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/cannot read the audit log postgres:\/\/127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/),
      });
      expect(unreachable.stderr).not.toContain('hunter2');
      expect(await runCliCaptured('audit', 'prune', '--max-bytes', '1M')).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('a PostgreSQL trail is bounded by --older-than and --max-rows'),
      });
    } finally {
      process.chdir(cwd);
      if (saved === undefined) delete process.env.TW_TEST_AUDIT_URL;
      else process.env.TW_TEST_AUDIT_URL = saved;
    }
  }, 60_000);

  it('serve refuses to start when PostgreSQL cannot be reached (onFailure: refuse), saying why without the password', async () => {
    const p = await project();
    const down = `postgres://postgres:hunter2@127.0.0.1:1/nowhere`;
    const serve = startBuiltCli(['serve', '--stdio'], { cwd: p.dir, env: { ...p.env, TW_TEST_AUDIT_URL: down } });
    const { code } = await serve.exit;
    expect(code).not.toBe(0);
    expect(serve.stderr()).toMatch(/the audit trail cannot be written \(PostgreSQL audit trail at postgres:\/\/127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/);
    expect(serve.stderr()).not.toContain('hunter2');
  }, 60_000);

  it("with onFailure 'warn' serve starts without PostgreSQL, says so once, and answers calls", async () => {
    const p = await project();
    writeFileSync(
      join(p.dir, 'toolwright.config.json'),
      JSON.stringify({ server: { audit: { postgres: '${TW_TEST_AUDIT_URL}', onFailure: 'warn' } }, toolsets: { math: {} } }),
    );
    const serve = startBuiltCli(['serve', '--stdio'], { cwd: p.dir, env: { ...p.env, TW_TEST_AUDIT_URL: 'postgres://postgres:hunter2@127.0.0.1:1/nowhere' } });
    await serve.waitForStderr(
      /warning: the audit trail cannot be written \(PostgreSQL audit trail at postgres:\/\/127\.0\.0\.1:1\/nowhere: .*\); serving without it/,
    );
    serve.child.stdin.write(sum(1));
    await expect.poll(serve.stdout, { timeout: 20_000 }).toContain('"structuredContent":{"sum":2}');
    expect(serve.stderr()).not.toContain('hunter2');
  }, 60_000);
});
