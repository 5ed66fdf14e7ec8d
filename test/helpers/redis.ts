import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { until } from './until.js';

/**
 * A real Redis server for the tests, from Debian's `redis-server` package ($TOOLWRIGHT_REDIS_SERVER
 * names another binary). Missing, the tests skip loudly, except under CI=true where they fail
 * (.ci/run installs it).
 */
export const REDIS_SERVER: string | undefined = [process.env.TOOLWRIGHT_REDIS_SERVER, '/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(
  (path): path is string => typeof path === 'string' && existsSync(path),
);

export const REDIS_MISSING =
  'the Redis tests need a Redis server: `apt-get install redis-server` (Debian/Ubuntu), or set TOOLWRIGHT_REDIS_SERVER to its binary';

if (!REDIS_SERVER) {
  if (process.env.CI === 'true') throw new Error(`${REDIS_MISSING} (CI=true: not skipped)`);
  console.warn(`\n*** SKIPPED: ${REDIS_MISSING} (they fail under CI=true) ***\n`);
}

/** True when something answers PING with PONG on the port. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      answer += d;
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

/**
 * A Redis server in a temp folder on a free 127.0.0.1 port, without persistence (no RDB, no AOF)
 * unless asked. `stop()` and `start()` take it down and bring it back on the same port, as an
 * outage would (its data is gone unless `persist` was set); `destroy()` stops it and removes the folder.
 */
export class TestRedis {
  private child?: ChildProcess;
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly persist: boolean,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async create(options: { persist?: boolean } = {}): Promise<TestRedis> {
    if (!REDIS_SERVER) throw new Error(REDIS_MISSING);
    const server = new TestRedis(mkdtempSync(join(tmpdir(), 'toolwright-redis-')), await freePort(), options.persist === true);
    try {
      await server.start();
    } catch (err) {
      await server.destroy();
      throw err;
    }
    return server;
  }

  /** Starts the server (again) and resolves once it answers PING. */
  async start(): Promise<void> {
    if (this.child) return;
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      this.persist ? 'yes' : 'no',
      '--protected-mode',
      'yes',
      '--daemonize',
      'no',
    ];
    let log = '';
    const child = spawn(REDIS_SERVER!, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: this.dir });
    child.on('error', (err) => void (log += String(err)));
    child.stdout!.on('data', (d) => (log = (log + d).slice(-4000)));
    child.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await until(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode}): ${log}`);
        return pings(this.port);
      },
      'Redis to answer PING',
      20_000,
    );
  }

  /** Kills the server at once (SIGKILL: connections are cut, as in a crash); resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
