import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sharedTempDir } from './temp.js';

const root = new URL('../../', import.meta.url).pathname;

export interface DefaultInstall {
  /** The installed package (package.json, dist/, schema/ copied; node_modules/ beside them). */
  pkg: string;
  /** A project folder to run the CLI in (a package.json makes it the state folder's project). */
  work: string;
  remove(): void;
  /** Runs the built CLI there with `stdin` written then closed; resolves once it exits (killed after 20 s). */
  cli(args: string[], options?: { stdin?: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/**
 * What `npm install toolwright` gives a project (issue 33): the package with only its
 * `dependencies` beside it (plus `extra`, a backend the project installed), none of the optional
 * peer dependencies. The built CLI (`npm run build` first) is copied, so Node resolves packages
 * from the copy's node_modules and never this checkout's: a backend left out is really absent.
 * Each dependency is a link to this checkout's install (its own dependencies resolve from there).
 */
export function defaultInstall(extra: string[] = []): DefaultInstall {
  const temp = sharedTempDir('toolwright-default-install-');
  const pkg = join(temp.dir, 'node_modules', 'toolwright');
  const work = join(temp.dir, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  for (const entry of ['package.json', 'dist', 'schema']) cpSync(join(root, entry), join(pkg, entry), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  // Beside the package, as npm hoists them: <temp>/node_modules/<name>.
  for (const name of [...Object.keys(manifest.dependencies), ...extra]) {
    const link = join(temp.dir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  const cli: DefaultInstall['cli'] = async (args, options = {}) => {
    const env: NodeJS.ProcessEnv = { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'silent', ...options.env };
    for (const name of ['TOOLWRIGHT_AUDIT_DIR', 'NODE_PATH', 'NODE_OPTIONS']) delete env[name];
    for (const name of Object.keys(env)) if (name.startsWith('OTEL_') && !options.env?.[name]) delete env[name];
    const child = spawn(process.execPath, [join(pkg, 'dist', 'cli', 'main.js'), ...args], { cwd: work, env });
    child.stdin.end(options.stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    return { code, stdout, stderr };
  };
  return { pkg, work, remove: temp.remove, cli };
}
