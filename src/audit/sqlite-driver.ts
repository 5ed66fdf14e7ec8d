import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { packageInstalled } from '../runtime/optional-package.js';
import type { SqliteDatabase, SqliteOptions } from './sqlite-types.js';

/**
 * The SQLite audit trail cannot work here: better-sqlite3 (or its native module, built by its
 * install script) is missing or was built for another Node.js. The message names the fix.
 */
export class SqliteDriverError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      `the SQLite audit trail needs better-sqlite3's native module, which ${reason}. ` +
        'Fix it where toolwright is installed: run `npm rebuild better-sqlite3` (npm skips, or will skip, install scripts ' +
        'the project has not approved: run `npm install-scripts approve better-sqlite3` first). ' +
        'Or turn the trail off (config: server.audit: false; in code: new ToolServer({ audit: false })), ' +
        'or keep JSON lines instead (server.audit: { sqlite: false, jsonl: "audit.jsonl" })',
      options,
    );
    this.name = 'SqliteDriverError';
  }

  /**
   * better-sqlite3 is not installed at all (an optional peer dependency): the fix is to install it.
   * `feature`: what needs it, when not the audit trail (whose message also names its alternatives).
   */
  static notInstalled(cause?: unknown, feature?: string): SqliteDriverError {
    const error = new SqliteDriverError('', { cause });
    error.message =
      `${feature ?? 'the SQLite audit trail'} needs the "better-sqlite3" package, which is not installed: run \`npm install better-sqlite3\` in the project that runs toolwright ` +
      '(its install script builds a native module: approve it with `npm install-scripts approve better-sqlite3`)' +
      (feature
        ? ''
        : '. Or keep the default trail, JSON lines, which needs no package (leave server.audit.sqlite unset), or turn the trail off (server.audit: false)');
    return error;
  }
}

/** Whether better-sqlite3 is installed (built or not): the default trail is SQLite when it is, JSON lines when not. */
export function sqliteDriverInstalled(): boolean {
  return packageInstalled('better-sqlite3');
}

const require = createRequire(import.meta.url);
let driver: typeof BetterSqlite3 | undefined;
/** Native bindings already loaded once ('' is better-sqlite3's own). */
const loadedBindings = new Set<string>();
/** better-sqlite3's own native module, once loaded by path (handed to the driver as its `nativeBinding` object). */
let ownAddon: object | undefined;

/**
 * Checks now, at start-up, that SQLite databases can be opened: loads the native module. A
 * missing or mismatched module is a SqliteDriverError naming the fix, instead of a failure on
 * every call later. Later checks are free.
 *
 * The check loads only the native module (dlopen is where a module built for another Node.js
 * or platform fails), from where better-sqlite3's install script builds it: the driver's
 * JavaScript and its `bindings` path search (~12 ms, a tenth of a server's time to its first
 * answer) wait for the first database actually opened. An install laid out otherwise is
 * checked the driver's own way, by opening an in-memory database.
 *
 * `nativeBinding`: better-sqlite3's option of that name, the path of a `.node` file to load
 * instead of the one its install script built (for bundled or relocated installs).
 */
export function checkSqliteDriver(nativeBinding?: string): void {
  const key = nativeBinding ?? '';
  if (loadedBindings.has(key)) return;
  const built = nativeBinding === undefined ? builtAddonPath() : undefined;
  try {
    if (built) ownAddon = require(built) as object;
    else new (loadDriver())(':memory:', nativeBinding === undefined ? {} : { nativeBinding }).close();
  } catch (err) {
    if (err instanceof SqliteDriverError) throw err;
    throw new SqliteDriverError(describeLoadFailure(err), { cause: err });
  }
  loadedBindings.add(key);
}

/**
 * Opens a database. The driver is loaded on first use, not at import: a server that turns
 * auditing off (or writes elsewhere) never pays for it. A driver that cannot load is a
 * SqliteDriverError; any other failure (a file that is not a database, …) is the driver's own.
 */
export function openSqlite(file: string, options: SqliteOptions = {}): SqliteDatabase {
  checkSqliteDriver(typeof options.nativeBinding === 'string' ? options.nativeBinding : undefined);
  const withAddon = options.nativeBinding === undefined && ownAddon ? { ...options, nativeBinding: ownAddon as never } : options;
  return new (loadDriver())(file, withAddon);
}

/** `build/Release/better_sqlite3.node` inside the installed better-sqlite3, when it is there. */
function builtAddonPath(): string | undefined {
  let packageJson: string;
  try {
    packageJson = require.resolve('better-sqlite3/package.json');
  } catch {
    return undefined; // not installed: loadDriver says so
  }
  const file = join(dirname(packageJson), 'build', 'Release', 'better_sqlite3.node');
  return existsSync(file) ? file : undefined;
}

function loadDriver(): typeof BetterSqlite3 {
  if (driver) return driver;
  try {
    driver = require('better-sqlite3') as typeof BetterSqlite3;
  } catch (err) {
    if (!sqliteDriverInstalled()) throw SqliteDriverError.notInstalled(err);
    throw new SqliteDriverError(describeLoadFailure(err), { cause: err });
  }
  return driver;
}

/** Why the native module did not load, in words that point at the fix (the raw error stays as `cause`). */
function describeLoadFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/NODE_MODULE_VERSION|was compiled against a different Node\.js version/i.test(message)) {
    return `was built for another version of Node.js (this is ${process.version})`;
  }
  if (/Could not locate the bindings file|Cannot find module|ENOENT/i.test(message)) return 'is not built';
  if (/invalid ELF header|wrong ELF class|not a valid Win32 application|mach-o/i.test(message)) {
    return `was built for another platform (this is ${process.platform}-${process.arch})`;
  }
  return 'cannot be loaded';
}
