import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, cpSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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
 * peer dependencies. The built CLI (`npm run build` first) is copied (hard-linked), so Node resolves packages
 * from the copy's node_modules and never this checkout's: a backend left out is really absent.
 * Each dependency is a link to this checkout's install (its own dependencies resolve from there).
 */
export function defaultInstall(extra: string[] = []): DefaultInstall {
  const temp = sharedTempDir('toolwright-default-install-');
  const pkg = join(temp.dir, 'node_modules', 'toolwright');
  const work = join(temp.dir, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  for (const entry of ['package.json', 'dist', 'schema']) linkTree(join(root, entry), join(pkg, entry));
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

/**
 * `from` (a file or a folder) at `to`: its files hard-linked, so Node finds them at the new path
 * and resolves packages from there, as from a copy. Copying dist/ (~2,000 files) cost a CPU-second
 * per install; linking, a tenth of that. Copied where a link cannot be made (another file system).
 */
function linkTree(from: string, to: string): void {
  const link = (source: string, target: string) => {
    try {
      linkSync(source, target);
    } catch {
      copyFileSync(source, target);
    }
  };
  if (!statSync(from).isDirectory()) {
    mkdirSync(dirname(to), { recursive: true });
    link(from, to);
    return;
  }
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) linkTree(join(from, entry.name), join(to, entry.name));
    else if (entry.isFile()) link(join(from, entry.name), join(to, entry.name));
    else cpSync(join(from, entry.name), join(to, entry.name)); // a symbolic link, as it is
  }
}
