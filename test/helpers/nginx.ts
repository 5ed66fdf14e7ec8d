import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { until } from './until.js';

/**
 * A real nginx in front of test servers, from Debian's `nginx` package ($TOOLWRIGHT_NGINX names
 * another binary). Missing, the tests skip loudly, except under CI=true where they fail (.ci/run
 * installs it).
 */
export const NGINX: string | undefined = [process.env.TOOLWRIGHT_NGINX, '/usr/sbin/nginx', '/usr/local/sbin/nginx'].find(
  (path): path is string => typeof path === 'string' && existsSync(path),
);

export const NGINX_MISSING = 'the load-balancer tests need nginx: `apt-get install nginx` (Debian/Ubuntu), or set TOOLWRIGHT_NGINX to its binary';

if (!NGINX) {
  if (process.env.CI === 'true') throw new Error(`${NGINX_MISSING} (CI=true: not skipped)`);
  console.warn(`\n*** SKIPPED: ${NGINX_MISSING} (they fail under CI=true) ***\n`);
}

/**
 * The configuration examples/scale-out/nginx.conf shows, for a temp folder: round-robin over the
 * upstreams (no affinity: any instance may get any request), HTTP/1.1 to them, no buffering (SSE
 * streams pass at once), long reads (a `subscriptions/listen` stream is quiet for minutes), and
 * a dead upstream skipped for the next try (a POST is retried only when nothing was sent yet).
 */
export function nginxConf(dir: string, listenPort: number, upstreamPorts: readonly number[]): string {
  const t = (name: string) => join(dir, 'temp', name);
  return `daemon off;
master_process on;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  log_format upstreams '$http_mcp_method $upstream_addr $status';
  access_log ${join(dir, 'access.log')} upstreams;
  client_body_temp_path ${t('body')};
  proxy_temp_path ${t('proxy')};
  fastcgi_temp_path ${t('fastcgi')};
  uwsgi_temp_path ${t('uwsgi')};
  scgi_temp_path ${t('scgi')};
  upstream toolwright {
${upstreamPorts.map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=2s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${listenPort};
    location / {
      proxy_pass http://toolwright;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
    }
  }
}
`;
}

/** nginx on a free 127.0.0.1 port in a temp folder, balancing round-robin over `upstreamPorts`. */
export class TestNginx {
  private child?: ChildProcess;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  /** The balanced MCP endpoint. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  static async create(upstreamPorts: readonly number[]): Promise<TestNginx> {
    if (!NGINX) throw new Error(NGINX_MISSING);
    const dir = mkdtempSync(join(tmpdir(), 'toolwright-nginx-'));
    mkdirSync(join(dir, 'temp'));
    const nginx = new TestNginx(dir, await freePort());
    writeFileSync(join(dir, 'nginx.conf'), nginxConf(dir, nginx.port, upstreamPorts));
    try {
      await nginx.start();
    } catch (err) {
      await nginx.destroy();
      throw err;
    }
    return nginx;
  }

  private async start(): Promise<void> {
    let log = '';
    const child = spawn(NGINX!, ['-p', this.dir, '-c', join(this.dir, 'nginx.conf'), '-e', join(this.dir, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: this.dir,
    });
    child.on('error', (err) => void (log += String(err)));
    child.stdout!.on('data', (d) => (log = (log + d).slice(-4000)));
    child.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
    this.child = child;
    await until(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}): ${log}`);
        return fetch(`http://127.0.0.1:${this.port}/`).then(
          () => true,
          () => false,
        );
      },
      'nginx to answer',
      20_000,
    );
  }

  /** Stops nginx (SIGTERM: a fast shutdown, open streams cut) and removes the folder. */
  async destroy(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
