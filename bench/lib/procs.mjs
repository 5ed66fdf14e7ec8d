// Server processes: spawn a target, learn its port, read its CPU time and peak RSS from
// /proc, and make sure every process we started is gone when the harness ends.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES } from '../../test/runtimes/runtimes.mjs';

const TARGET_DIR = fileURLToPath(new URL('../targets/', import.meta.url));
const live = new Set();

/**
 * Starts `node [nodeArgs] targets/<script> <transport> <toolCount>` with all three stdio
 * pipes (stdin open = "harness alive"; stderr kept as a short tail for error messages).
 * `runtime` ('deno', 'bun'): that runtime's executable from .cache/runtimes/ instead of Node
 * (nodeArgs are Node's, so not passed).
 */
export function spawnTarget(script, transport, toolCount, nodeArgs = [], extraEnv = {}, runtime = undefined) {
  // toolwright's default audit trail starts empty for every server, as on a fresh install, and
  // goes away with it (in the working directory it would grow by gigabytes over a few runs).
  const auditDir = mkdtempSync(join(tmpdir(), 'toolwright-bench-audit-'));
  const [command, args] = runtime ? runtimeCommand(runtime) : [process.execPath, nodeArgs];
  const child = spawn(command, [...args, TARGET_DIR + script, transport, String(toolCount)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', TOOLWRIGHT_AUDIT_DIR: auditDir, ...extraEnv },
  });
  child.auditDir = auditDir;
  child.once('exit', () => rmSync(auditDir, { recursive: true, force: true }));
  live.add(child);
  let tail = '';
  child.stderr.setEncoding('utf8');
  // (the soak target's SOAK-HEAP lines are samples, not messages worth keeping)
  child.stderr.on('data', (s) => (tail = (tail + s.replace(/^SOAK-HEAP .*\n?/gm, '')).slice(-4000)));
  child.stdin.on('error', () => {}); // EPIPE when the server dies; the load driver reports it
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  return {
    child,
    pid: child.pid,
    auditDir,
    exited,
    stderrTail: () => tail.trim().split('\n').slice(-8).join('\n'),
    stop: () => stopChild(child, exited),
  };
}

/** The executable and leading arguments that run a target script in another runtime. */
function runtimeCommand(runtime) {
  const binary = RUNTIMES[runtime]?.binary;
  if (!binary) throw new Error(`unknown runtime ${runtime}`);
  if (!existsSync(binary))
    throw new Error(`${runtime} is not installed: run \`node test/runtimes/install.mjs ${runtime}\` (from the npm registry, into .cache/runtimes/)`);
  // Deno: every permission (a benchmark server on loopback; the runtime tests check the narrow set).
  return [binary, runtime === 'deno' ? ['run', '--allow-all'] : []];
}

/** HTTP targets print `LISTENING <port>` on stdout once bound. */
export function waitForPort(proc, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error(`no LISTENING line within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk) => {
      seen += chunk.toString('utf8');
      const m = /LISTENING (\d+)/.exec(seen);
      if (m) {
        // What the target printed before its port (the JWT target's TOKEN line).
        proc.banner = seen;
        done(() => resolve(Number(m[1])));
      }
    };
    const onExit = ({ code, signal } = {}) => fail(new Error(`server exited before listening (code ${code}, signal ${signal})`));
    const done = (fn) => {
      clearTimeout(timer);
      proc.child.stdout.off('data', onData);
      fn();
    };
    const fail = (err) => done(() => reject(new Error(`${err.message}\n${proc.stderrTail()}`)));
    proc.child.stdout.on('data', onData);
    proc.exited.then(onExit);
  });
}

async function stopChild(child, exited) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // Measuring is over: no need to let the server drain. Targets exit(0) on SIGTERM (so
  // --cpu-prof still writes its profile); SIGKILL if one does not.
  child.stdin.end();
  child.kill('SIGTERM');
  const hard = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(hard);
}

/** Synchronously kills everything still running (exit, SIGINT, uncaught errors). */
export function killAll() {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
      rmSync(child.auditDir, { recursive: true, force: true });
    } catch {}
  }
  live.clear();
}

const TICKS = 100; // USER_HZ; Linux reports utime/stime in these

/** CPU seconds (user + system, all threads) the process (or the processes, summed) has used so far. */
export function cpuSeconds(pid) {
  if (Array.isArray(pid)) return pid.reduce((sum, p) => sum + cpuSeconds(p), 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after "pid (comm) " the fields start at "state" (field 3); utime is field 14, stime 15
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Peak and current resident set size in bytes (of several processes: summed). */
export function memory(pid) {
  if (Array.isArray(pid)) return pid.map(memory).reduce((a, b) => ({ peak: a.peak + b.peak, current: a.current + b.current }), { peak: 0, current: 0 });
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { peak: kb('VmHWM'), current: kb('VmRSS') };
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0), so each cell reports its own peak. */
export function resetPeak(pid) {
  if (Array.isArray(pid)) return pid.map(resetPeak).every(Boolean);
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
