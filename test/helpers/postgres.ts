import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';
import { POSTGRES_TEMPLATE_PREFIX } from './global-setup.js';
import { until } from './until.js';

/**
 * A real PostgreSQL server for the tests, from Debian's `postgresql` package (initdb and
 * postgres under /usr/lib/postgresql/<version>/bin; $TOOLWRIGHT_PG_BIN names another folder).
 * Missing, the tests skip loudly, except under CI=true where they fail (.ci/run installs it).
 */
export const PG_BIN: string | undefined = (() => {
  const candidates = process.env.TOOLWRIGHT_PG_BIN ? [process.env.TOOLWRIGHT_PG_BIN] : [];
  if (candidates.length === 0 && existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')));
})();

export const PG_MISSING =
  "the PostgreSQL tests need PostgreSQL's server binaries: `apt-get install postgresql` (Debian/Ubuntu), or set TOOLWRIGHT_PG_BIN to a folder holding initdb and postgres";

if (!PG_BIN) {
  if (process.env.CI === 'true') throw new Error(`${PG_MISSING} (CI=true: not skipped)`);
  console.warn(`\n*** SKIPPED: ${PG_MISSING} (they fail under CI=true) ***\n`);
}

/** initdb and postgres refuse to run as root: as root they run as the `postgres` user (which Debian's package creates). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * An empty cluster made by initdb once per test run (~2 s and a second of CPU each time), which
 * every server of the run copies (a fraction of that). It is named after the run's temp dir
 * ($TOOLWRIGHT_AUDIT_DIR) but kept beside it in /tmp, which the postgres user can enter, and
 * global-setup.ts removes it at the end; the workers of one run that race to make it each make
 * their own and keep whichever was renamed into place first.
 */

function clusterTemplate(user: { uid: number; gid: number } | undefined): string {
  const template = join(tmpdir(), `${POSTGRES_TEMPLATE_PREFIX}${basename(process.env.TOOLWRIGHT_AUDIT_DIR ?? String(process.pid))}`);
  if (existsSync(template)) return template;
  const work = mkdtempSync(join(tmpdir(), 'toolwright-initdb-'));
  if (user) chownSync(work, user.uid, user.gid);
  execFileSync(join(PG_BIN!, 'initdb'), ['-D', join(work, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: work, // the postgres user may not enter the test's working directory
    ...(user ?? {}),
  });
  try {
    renameSync(join(work, 'data'), template);
  } catch {
    // Another worker's template is in place already: that one serves.
  }
  rmSync(work, { recursive: true, force: true });
  return template;
}

/** The copy belongs to the user the server runs as (postgres refuses a data dir it does not own). */
function chownTree(dir: string, user: { uid: number; gid: number }): void {
  chownSync(dir, user.uid, user.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    chownSync(join(entry.parentPath ?? entry.path, entry.name), user.uid, user.gid);
  }
}

/**
 * A PostgreSQL server in a temp folder, on a free 127.0.0.1 port (its socket in the folder too,
 * never /var/run). `stop()` and `start()` take it down and bring it back on the same port, as an
 * outage would; `destroy()` stops it and removes the folder.
 */
export class TestPostgres {
  private child?: ChildProcess;
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly user: { uid: number; gid: number } | undefined,
  ) {}

  /** The URL of database `postgres` as the superuser `postgres` (trust authentication, 127.0.0.1 only). */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(): Promise<TestPostgres> {
    if (!PG_BIN) throw new Error(PG_MISSING);
    const dir = mkdtempSync(join(tmpdir(), 'toolwright-pg-'));
    const user = runAs();
    if (user) chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
    cpSync(clusterTemplate(user), join(dir, 'data'), { recursive: true, preserveTimestamps: true });
    if (user) chownTree(join(dir, 'data'), user);
    const server = new TestPostgres(dir, await freePort(), user);
    try {
      await server.start();
    } catch (err) {
      await server.destroy();
      throw err;
    }
    return server;
  }

  /** Starts the server (again) and resolves once it takes connections. */
  async start(): Promise<void> {
    if (this.child) return;
    // fsync off: the tests kill toolwright, never the machine; a commit in PostgreSQL's memory is what they check.
    const child = spawn(
      join(PG_BIN!, 'postgres'),
      ['-D', join(this.dir, 'data'), '-p', String(this.port), '-h', '127.0.0.1', '-k', this.dir, '-c', 'fsync=off', '-c', 'logging_collector=off'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        cwd: this.dir,
        ...(this.user ?? {}),
      },
    ).on('error', (err) => void (log += String(err)));
    this.child = child;
    let log = '';
    child.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await until(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`postgres exited (${child.exitCode ?? child.signalCode}): ${log}`);
        const client = new pg.Client({ connectionString: this.url });
        client.on('error', () => {});
        try {
          await client.connect();
          await client.end();
          return true;
        } catch {
          return false;
        }
      },
      'PostgreSQL to take connections',
      30_000,
    );
  }

  /** A fast shutdown (SIGINT: connections are cut, as in an outage); resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    await exited;
    this.child = undefined;
  }

  private databases = 0;

  /** A new empty database on this server; its URL. Each test takes its own: nothing leaks between them. */
  async database(): Promise<string> {
    const name = `t${++this.databases}`;
    await this.query(`CREATE DATABASE ${name}`);
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  /** Runs one statement on a connection of its own (to `url`, default the `postgres` database). */
  async query(text: string, values?: unknown[], url = this.url): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
