import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { ConnectionError } from '../errors.js';
import { StreamClientTransport } from './stream-transport.js';
import type { CloseOptions } from '../transport.js';
import { LineSplitter } from '../../io/line-splitter.js';
import type { StdioTarget } from './stdio-target.js';

export type { StdioTarget } from './stdio-target.js';

export interface StdioTransportOptions {
  maxMessageBytes?: number;
  /** After stdin closes, how long the server may take to exit before SIGTERM, then SIGKILL (default 3 s each). */
  closeGraceMs?: number;
  onWarning?: (message: string) => void;
}

const SAFE_ENV =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'PROGRAMFILES',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR'];
const STDERR_TAIL_BYTES = 8 * 1024;

/**
 * Spawns a server and talks newline-delimited JSON-RPC over its stdin and
 * stdout (stdio.mdx). Shutdown follows the spec: close stdin, wait, then
 * SIGTERM, then SIGKILL.
 */
export class StdioClientTransport extends StreamClientTransport {
  readonly kind = 'stdio' as const;
  private stderrTail = '';
  private exited = false;
  private readonly exitedPromise: Promise<void>;
  /** The process itself ended (its pipes may still be held by what it started). */
  private readonly processExited: Promise<unknown>;
  private readonly ownsGroup: boolean;
  /** When this process exits with the server still running, its group goes too (a detached group would outlive us). */
  private readonly killGroupOnExit = () => {
    if (!this.exited) this.signal('SIGKILL');
  };

  private constructor(
    private readonly child: ChildProcess,
    private readonly target: StdioTarget,
    private readonly options: StdioTransportOptions,
  ) {
    super(options.onWarning ?? (() => {}));
    const limit = options.maxMessageBytes ?? 16 * 1024 * 1024;
    const splitter = new LineSplitter(
      limit,
      (line) => this.connection.receive(line),
      () => this.connection.oversized(limit),
      () => options.onWarning?.('ignored a message from the server that is not valid UTF-8'),
    );
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stdout!.on('end', () => splitter.end());
    this.ownsGroup = target.ownProcessGroup === true && process.platform !== 'win32';
    this.processExited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
    if (this.ownsGroup) process.on('exit', this.killGroupOnExit);
    child.stdin!.on('error', () => {}); // EPIPE when the server died; 'close' reports it
    child.stderr?.setEncoding('utf8');
    const checkLines = target.detectWrongTransport && wrongTransportCheck(target.detectWrongTransport, (message) => this.wrongTransport(message));
    child.stderr?.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_BYTES);
      target.onStderr?.(text);
      checkLines?.(text);
    });
    // 'close' waits for stdout to end, so every answer the server wrote is handled first.
    this.exitedPromise = once(child, 'close').then(([code, signal]) => {
      this.exited = true;
      this.releaseGroup();
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.connection.fail(new ConnectionError(`the server process ${how}`, 'exit', { stderr: this.capturedStderr() }));
    });
  }

  /** Starts the server; rejects with ConnectionError when it cannot be spawned. */
  static async start(target: StdioTarget, options: StdioTransportOptions = {}): Promise<StdioClientTransport> {
    const mode = target.stderr ?? 'inherit';
    const child = spawn(target.command, target.args ?? [], {
      cwd: target.cwd,
      env: buildEnv(target),
      stdio: ['pipe', 'pipe', mode === 'capture' ? 'pipe' : mode],
      windowsHide: true,
      detached: target.ownProcessGroup === true && process.platform !== 'win32',
    });
    try {
      await Promise.race([once(child, 'spawn'), once(child, 'error').then(([err]) => Promise.reject(err))]);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'command not found' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
      throw new ConnectionError(`could not start ${JSON.stringify(target.command)}: ${why}`, 'spawn', { cause: err });
    }
    child.on('error', () => {}); // later errors (kill failures) surface through 'close'
    return new StdioClientTransport(child, target, options);
  }

  /** The end of the server's stderr, when `stderr` is 'capture'. */
  capturedStderr(): string | undefined {
    return this.target.stderr === 'capture' ? this.stderrTail : undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Settles once the server process has exited and its output is read (the gateway restarts an upstream that died). */
  get whenExited(): Promise<void> {
    return this.exitedPromise;
  }

  /**
   * Stdin closed, then after `graceMs` SIGTERM, then after `graceMs` again SIGKILL (default
   * closeGraceMs). A server in its own process group is signalled as the whole group: a
   * launcher such as npx or a shell runs the real server as its child, which would otherwise
   * outlive the signal and keep the pipes open (issue 21: Ctrl-C waited ~26 s for it).
   */
  async close(options: CloseOptions = {}): Promise<void> {
    if (!this.exited) {
      const grace = options.graceMs ?? this.options.closeGraceMs ?? 3_000;
      this.child.stdin!.end();
      if (!(await this.exitsWithin(grace))) {
        this.signal('SIGTERM');
        if (!(await this.exitsWithin(grace))) {
          this.signal('SIGKILL');
          await this.processExited;
          // The pipes close as the rest of the group dies; a process that left the group (a
          // session of its own) may hold them for good: once ours is dead, stop waiting for them.
          if (!(await this.exitsWithin(grace))) {
            this.child.stdout!.destroy();
            this.child.stderr?.destroy();
            await this.exitedPromise;
          }
        }
      }
    }
    this.releaseGroup();
    this.connection.fail(new ConnectionError('the connection is closed', 'closed'));
  }

  protected send(json: string): void {
    if (this.exited || !this.child.stdin!.writable) throw new ConnectionError('the server process is not running', 'exit', { stderr: this.capturedStderr() });
    this.child.stdin!.write(`${json}\n`);
  }

  /** The server said it serves another transport: fail what waits on its stdout now, and stop it (it may not stop when stdin closes). */
  private wrongTransport(message: string): void {
    if (this.exited) return;
    this.connection.fail(new ConnectionError(message, 'wrong-transport', { stderr: this.capturedStderr() }));
    this.signal('SIGTERM');
  }

  private releaseGroup(): void {
    if (this.ownsGroup) process.off('exit', this.killGroupOnExit);
  }

  /** The process group when the server leads one (POSIX, ownProcessGroup), else the process alone. */
  private signal(signal: NodeJS.Signals): void {
    if (this.ownsGroup && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, signal);
        return;
      } catch {
        // ESRCH: the group is gone; the process alone, in case it is not
      }
    }
    this.child.kill(signal);
  }

  private async exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
    try {
      return await Promise.race([this.exitedPromise.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Calls `detect` with each whole line of stderr (a partial line is kept, bounded) until it returns a message, once. */
function wrongTransportCheck(detect: (line: string) => string | undefined, found: (message: string) => void): (text: string) => void {
  let partial = '';
  let done = false;
  return (text) => {
    if (done) return;
    const lines = (partial + text).split('\n');
    partial = lines.pop()!.slice(-STDERR_TAIL_BYTES);
    for (const line of lines) {
      const message = detect(line.replace(/\r$/, ''));
      if (message === undefined) continue;
      done = true;
      found(message);
      return;
    }
  };
}

function buildEnv(target: StdioTarget): NodeJS.ProcessEnv {
  if (target.inheritEnv) return { ...process.env, ...target.env };
  const env: NodeJS.ProcessEnv = {};
  for (const key of SAFE_ENV) {
    const value = process.env[key];
    // Skip exported shell functions, a known injection vector.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return { ...env, ...target.env };
}
