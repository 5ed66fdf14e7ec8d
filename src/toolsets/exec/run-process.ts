import { spawn, type ChildProcess } from 'node:child_process';
import { CappedOutput } from './capped-output.js';

interface ProcessSpec {
  path: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes kept of each of stdout and stderr. */
  maxOutputBytes: number;
  /** Output (both streams) past which the command is killed instead of read on. */
  killAfterOutputBytes: number;
  /** Aborted on cancel or the pipeline's timeout: the process group is killed. */
  signal: AbortSignal;
}

export interface ProcessOutcome {
  exitCode: number | null;
  /** The signal that ended the command (SIGKILL after a timeout, a cancel or too much output). */
  signal: string | null;
  stdout: CappedOutput;
  stderr: CappedOutput;
  timedOut: boolean;
  outputLimitHit: boolean;
  durationMs: number;
}

/** Process groups of commands still running, killed if this server exits first. */
const live = new Set<number>();
let exitHookInstalled = false;

/**
 * Runs one executable with an argv (never a shell) in its own process
 * group (`detached` makes it a session and group leader), so that a
 * timeout, a cancel or an output flood kills the command and everything it
 * started with one `kill(-pgid, SIGKILL)`. When the command itself exits,
 * the group is killed too: background children must not outlive the call
 * (they would also hold the output pipes open). A grandchild that starts its
 * own session (setsid, a daemon) leaves the group and is out of reach.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  installExitHook();
  spec.signal.throwIfAborted();
  const started = performance.now();
  const stdout = new CappedOutput(spec.maxOutputBytes);
  const stderr = new CappedOutput(spec.maxOutputBytes);
  return new Promise((resolve, reject) => {
    let timedOut = false;
    let outputLimitHit = false;
    let settled = false;
    const child: ChildProcess = spawn(spec.path, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      shell: false,
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const pgid = child.pid;
    if (pgid !== undefined) live.add(pgid);
    const killGroup = () => killProcessGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, spec.timeoutMs);
    const onAbort = () => killGroup();
    spec.signal.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      spec.signal.removeEventListener('abort', onAbort);
      if (pgid !== undefined) live.delete(pgid);
    };
    const collect = (into: CappedOutput) => (chunk: Buffer) => {
      into.push(chunk);
      if (!outputLimitHit && stdout.total + stderr.total > spec.killAfterOutputBytes) {
        outputLimitHit = true;
        killGroup();
      }
    };
    child.stdout!.on('data', collect(stdout));
    child.stderr!.on('data', collect(stderr));
    child.on('exit', killGroup);
    child.on('error', (err) => {
      // Spawn failures (ENOENT, EACCES) arrive here; 'close' may follow.
      if (settled) return;
      killGroup();
      finish();
      reject(err);
    });
    child.on('close', (exitCode, signal) => {
      if (settled) return;
      finish();
      resolve({ exitCode, signal, stdout, stderr, timedOut, outputLimitHit, durationMs: Math.round(performance.now() - started) });
    });
  });
}

/**
 * SIGKILL to the whole group; ESRCH (already gone) is fine. After the
 * leader exits its pid stays reserved while any member of its group lives,
 * so the group id cannot name someone else's processes.
 */
function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pgid of live) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}
