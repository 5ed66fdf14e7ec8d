import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { TYPESCRIPT } from '../load-tools.js';
import { shown } from './module-bundle.js';

/** A reload refused because the project's TypeScript found type errors in the files it would run. */
export class TypeCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TypeCheckError';
  }
}

/** tsc's `--pretty false` form: `tools.ts(3,7): error TS2322: Type 'string' is not …` (continuation lines are indented). */
const DIAGNOSTIC = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
/** tsc's answer to a flag it does not know (TS5023), or to --incremental it will not take here (TS5xxx options errors). */
const REFUSED_FLAG = /error TS5\d{3}: .*(incremental|tsBuildInfoFile)/i;
const SHOWN_ERRORS = 3;
/** Enough for every error a real edit makes; past it the output is dropped (the child keeps running to its end). */
const OUTPUT_LIMIT = 1 << 20;
export const TYPECHECK_TIMEOUT_MS = 20_000;

interface Diagnostic {
  file: string;
  line: number;
  column: number;
  code: string;
  text: string;
}

interface TscRun {
  code: number | null;
  output: string;
  timedOut: boolean;
  failed?: Error;
}

/**
 * The project's `tsc`, found from the module's folder upward (`node_modules/typescript/bin/tsc`,
 * else a `node_modules/.bin/tsc` that is a Node script): never toolwright's own, which is
 * not the TypeScript the project builds with. Undefined when the project has none.
 */
export function findProjectTsc(module: string): string | undefined {
  for (let dir = dirname(resolve(module)); ; dir = dirname(dir)) {
    const bin = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
    if (existsSync(bin)) return bin;
    const shim = join(dir, 'node_modules', '.bin', 'tsc');
    if (existsSync(shim) && isNodeScript(shim)) return realpathSync(shim);
    if (dirname(dir) === dir) return undefined;
  }
}

/** The nearest folder with a tsconfig.json, from the module's folder upward. */
export function findTsconfigDir(module: string): string | undefined {
  for (let dir = dirname(resolve(module)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'tsconfig.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export const isTypeScript = (module: string): boolean => TYPESCRIPT.has(extname(module));

/**
 * The type check `toolwright dev` runs before a reload of a TypeScript tools module is applied:
 * the project's own `tsc` as a child process (no shell, a minimal environment), `--noEmit`
 * against the nearest tsconfig.json (or the module alone with sensible defaults), incremental
 * with its build info in the state folder so a re-check reuses the last one. Errors in the files
 * the reload would run refuse it (TypeCheckError); errors elsewhere in the project do not. A
 * check that cannot run, or runs past `timeoutMs`, does not hold the reload: it is applied with
 * a warning.
 */
export class DevTypeCheck {
  private incremental = true;
  private running?: ChildProcess;
  private warming?: Promise<void>;

  constructor(
    private readonly stateDir: string,
    private readonly warn: (message: string) => void,
    private readonly timeoutMs = TYPECHECK_TIMEOUT_MS,
  ) {}

  /**
   * Checks the modules once in the background, their outcome unused, so the build info is there
   * and the first reload's check is as quick as the next ones; a check waits for it.
   */
  warm(modules: readonly string[]): void {
    this.warming = (async () => {
      for (const module of modules) await this.checkRun(module);
    })().catch(() => {});
  }

  /** Throws TypeCheckError when `files` (the module and what it imports, absolute) have type errors. */
  async check(module: string, files: readonly string[]): Promise<void> {
    await this.warming;
    const checked = await this.checkRun(module);
    if (!checked) return;
    const { run, cwd } = checked;
    if (run.failed) return this.warn(`the type check could not run (${run.failed.message}); applied unchecked`);
    if (run.timedOut) return this.warn(`the type check took over ${this.timeoutMs / 1000} s; applied unchecked`);
    if (run.code === 0) return;
    const all = parseDiagnostics(run.output, cwd);
    const watched = new Set(files.map((f) => resolve(f)));
    const ours = all.filter((d) => watched.has(d.file));
    if (ours.length) throw new TypeCheckError(describe(ours));
    if (!all.length) this.warn(`the type check could not run (${firstLine(run.output) || `tsc exited with ${run.code}`}); applied unchecked`);
  }

  /** tsc run for the module (again without --incremental when this tsc refuses it); undefined when the project has no tsc. */
  private async checkRun(module: string): Promise<{ run: TscRun; cwd: string } | undefined> {
    const tsc = findProjectTsc(module);
    if (!tsc) return undefined;
    const project = findTsconfigDir(module);
    const cwd = project ?? dirname(resolve(module));
    const target = project ? ['-p', project] : ['--skipLibCheck', '--module', 'nodenext', '--target', 'es2022', basename(module)];
    let run = await this.run(tsc, cwd, target, project ?? resolve(module));
    if (run.code !== 0 && this.incremental && REFUSED_FLAG.test(run.output)) {
      this.incremental = false;
      run = await this.run(tsc, cwd, target, project ?? resolve(module));
    }
    return { run, cwd };
  }

  /** Stops a check still running (the process is exiting). */
  close(): void {
    if (this.running) stop(this.running);
  }

  private run(tsc: string, cwd: string, target: string[], key: string): Promise<TscRun> {
    const args = [tsc, '--noEmit', '--pretty', 'false', ...this.incrementalFlags(key), ...target];
    return new Promise((done) => {
      let output = '';
      let timedOut = false;
      // Its own process group on POSIX, so that a stop reaches a compiler the `tsc` script started (TypeScript 7's
      // wrapper runs the native binary as a child where it cannot exec it).
      const child = spawn(process.execPath, args, {
        cwd,
        env: minimalEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        detached: process.platform !== 'win32',
      });
      this.running = child;
      const collect = (chunk: Buffer) => {
        if (output.length < OUTPUT_LIMIT) output += chunk.toString('utf8');
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => {
        timedOut = true;
        stop(child);
      }, this.timeoutMs);
      const finish = (result: TscRun) => {
        clearTimeout(timer);
        this.running = undefined;
        done(result);
      };
      child.on('error', (failed) => finish({ code: null, output, timedOut, failed }));
      child.on('close', (code) => finish({ code, output, timedOut }));
    });
  }

  /** Build info per project (or lone module), in the state folder; none when that folder cannot be made. */
  private incrementalFlags(key: string): string[] {
    if (!this.incremental) return [];
    try {
      mkdirSync(this.stateDir, { recursive: true, mode: 0o700 });
    } catch {
      return [];
    }
    const name = `dev-tsc-${createHash('sha256').update(key).digest('hex').slice(0, 12)}.tsbuildinfo`;
    return ['--incremental', '--tsBuildInfoFile', join(this.stateDir, name)];
  }
}

/** The check's process group (POSIX), else the process. */
function stop(child: ChildProcess): void {
  try {
    if (process.platform !== 'win32' && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    else child.kill();
  } catch {
    child.kill();
  }
}

/** What tsc needs to run and nothing else: no tokens or keys of the shell that started `toolwright dev`. */
function minimalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'SystemRoot', 'TMPDIR', 'TEMP', 'TMP']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

function parseDiagnostics(output: string, cwd: string): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const line of output.split(/\r?\n/)) {
    const match = DIAGNOSTIC.exec(line);
    if (match) found.push({ file: resolve(cwd, match[1]!), line: Number(match[2]), column: Number(match[3]), code: match[4]!, text: match[5]! });
    else if (/^\s+\S/.test(line) && found.length) found[found.length - 1]!.text += `\n${line}`;
  }
  return found;
}

/** As the terminal shows a syntax error: `tools.ts:3:7: message (TS2322)`, the first few, then how many more. */
function describe(diagnostics: Diagnostic[]): string {
  const lines = diagnostics.slice(0, SHOWN_ERRORS).map((d) => `${shown(d.file)}:${d.line}:${d.column}: ${d.text} (${d.code})`);
  const more = diagnostics.length - SHOWN_ERRORS;
  if (more > 0) lines.push(`… and ${more} more type error${more === 1 ? '' : 's'}`);
  return lines.join('\n');
}

const firstLine = (text: string) => text.split(/\r?\n/).find((line) => line.trim()) ?? '';

function isNodeScript(path: string): boolean {
  if (/\.(c|m)?js$/.test(realpathSync(path))) return true;
  const head = Buffer.alloc(64);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const read = readSync(fd, head, 0, head.length, 0);
    return /^#!.*\bnode\b/.test(head.subarray(0, read).toString('utf8').split('\n')[0] ?? '');
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
