import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

// Running the tests must leave nothing behind in the user's temp dir: every dir made here is removed again.

/** A fresh dir in the OS temp dir, removed when the test that made it finishes. */
export function tempDir(prefix: string): string {
  let remove = () => {};
  onTestFinished(() => remove()); // first: outside a test this throws before anything is made
  const temp = sharedTempDir(prefix);
  remove = temp.remove;
  return temp.dir;
}

/** A fresh dir for a file's tests to share: make it in `beforeAll` and return `remove` from that hook. */
export function sharedTempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The environment a spawned toolwright server needs to audit (and keep per-user state) in the
 * run's temp dir: a stdio client passes only a few safe variables on, and the default trail
 * would land in the repository. NODE_OPTIONS goes too: the LTS leg (scripts/test-on-lts.mjs)
 * preloads through it the redirect to better-sqlite3 built for that Node's ABI, and a server
 * started without it loads the floor's build and exits at start (issue 33).
 */
export function auditEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['TOOLWRIGHT_AUDIT_DIR', 'XDG_STATE_HOME', 'NODE_OPTIONS']) if (process.env[name]) env[name] = process.env[name]!;
  return env;
}
