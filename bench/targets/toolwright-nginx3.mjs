// Three toolwright instances behind nginx (issue 24; HTTP only): three toolwright-redis.mjs
// servers sharing one Redis state (one key prefix: the same rate-limit counts), and nginx in front
// (round-robin, no affinity, keepalive to the upstreams, as examples/scale-out/nginx.conf). The
// Redis is $TOOLWRIGHT_BENCH_REDIS, or a redis-server of our own on a free port.
//
// This process only supervises: the harness's CPU and memory accounting reads the processes it
// names on its `PIDS` line (the three instances, summed) and `SIDE-PIDS` line (nginx's master and
// worker, reported apart). nginx and redis-server run under `sh`, which kills them when our pipe to
// it closes, so nothing outlives us even if we are SIGKILLed; the instances exit on that too.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportPort, targetArgs } from './common.mjs';

const INSTANCES = 3;
const NGINX = [process.env.TOOLWRIGHT_NGINX, '/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((p) => p && existsSync(p));
const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('toolwright-nginx3 is an HTTP target');
if (!NGINX) throw new Error('toolwright-nginx3 needs nginx: `apt-get install nginx`, or TOOLWRIGHT_NGINX naming its binary');

const dir = mkdtempSync(join(tmpdir(), 'toolwright-bench-nginx3-'));
const children = [];
let stopping = false;
const stopAll = () => {
  if (stopping) return;
  stopping = true;
  // Closing their stdin is the stop signal for all: the instances exit, and each guard `sh` kills
  // its nginx or redis-server (a signal to the `sh` would end it before it does).
  for (const c of children) c.stdin.end();
  rmSync(dir, { recursive: true, force: true });
};
process.once('exit', stopAll);
// The temp folder (nginx's config and logs, redis's, the instances' audit trails) goes when our
// pipe to this `sh` closes, also if we are SIGKILLed.
children.push(spawn('sh', ['-c', 'cat >/dev/null; rm -rf "$1"', 'sh', dir], { stdio: ['pipe', 'ignore', 'ignore'] }));
process.once('SIGTERM', () => process.exit(0));
process.once('SIGINT', () => process.exit(0));
process.stdin.once('end', () => process.exit(0));
process.stdin.once('close', () => process.exit(0));
process.stdin.resume();

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** Runs `command` under sh, which prints its pid and kills it when our pipe to sh closes. */
function guarded(name, command, args) {
  const quoted = [command, ...args].map((a) => `'${String(a).replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('sh', ['-c', `${quoted} >/dev/null 2>&1 </dev/null & p=$!; echo "PID $p"; cat >/dev/null; kill $p 2>/dev/null; wait $p`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /PID (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`${name} exited`)));
  });
}

async function until(what, check, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`toolwright-nginx3: ${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let redisUrl = process.env.TOOLWRIGHT_BENCH_REDIS;
if (!redisUrl) {
  const port = await freePort();
  await guarded('redis-server', 'redis-server', ['--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
  redisUrl = `redis://127.0.0.1:${port}`;
}

const instancePids = [];
const upstreamPorts = [];
for (let i = 0; i < INSTANCES; i++) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('toolwright-redis.mjs', import.meta.url)), 'http', String(toolCount)], {
    stdio: ['pipe', 'pipe', 'inherit'],
    // an audit trail each (one folder written by three processes is refused), removed with ours
    env: {
      ...process.env,
      TOOLWRIGHT_AUDIT_DIR: join(dir, `audit-${i + 1}`),
      TOOLWRIGHT_BENCH_REDIS: redisUrl,
      TOOLWRIGHT_BENCH_REDIS_PREFIX: `bench-nginx3-${process.pid}-${Date.now()}`,
    },
  });
  children.push(child);
  instancePids.push(child.pid);
  upstreamPorts.push(
    await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /LISTENING (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`toolwright instance ${i + 1} exited (code ${code})`)));
    }),
  );
}

const listenPort = await freePort();
mkdirSync(join(dir, 'temp'));
const t = (name) => join(dir, 'temp', name);
writeFileSync(
  join(dir, 'nginx.conf'),
  `daemon off;
master_process on;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${t('body')};
  proxy_temp_path ${t('proxy')};
  fastcgi_temp_path ${t('fastcgi')};
  uwsgi_temp_path ${t('uwsgi')};
  scgi_temp_path ${t('scgi')};
  upstream toolwright {
${upstreamPorts.map((port) => `    server 127.0.0.1:${port};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${listenPort};
    keepalive_requests 1000000;
    location / {
      proxy_pass http://toolwright;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
    }
  }
}
`,
);
const nginxPid = await guarded('nginx', NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')]);
await until('nginx answering', () => fetch(`http://127.0.0.1:${listenPort}/`).then(() => true));
const workers = readFileSync(`/proc/${nginxPid}/task/${nginxPid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);

process.stdout.write(`PIDS ${instancePids.join(',')}\nSIDE-PIDS ${[nginxPid, ...workers].join(',')}\n`);
reportPort(listenPort);
