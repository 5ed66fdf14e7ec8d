import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

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
}

let driver: typeof BetterSqlite3 | undefined;
/** Native bindings already loaded once ('' is better-sqlite3's own). */
const loadedBindings = new Set<string>();

/**
 * Checks now, at start-up, that SQLite databases can be opened: loads better-sqlite3 and its
 * native module (by opening an in-memory database, the only way its loader offers). A missing
 * or mismatched module is a SqliteDriverError naming the fix, instead of a failure on every
 * call later. Costs a few milliseconds once per process; later checks are free.
 *
 * `nativeBinding`: better-sqlite3's option of that name, the path of a `.node` file to load
 * instead of the one its install script built (for bundled or relocated installs).
 */
export function checkSqliteDriver(nativeBinding?: string): void {
  const key = nativeBinding ?? '';
  if (loadedBindings.has(key)) return;
  const Driver = loadDriver();
  let db: BetterSqlite3.Database;
  try {
    db = new Driver(':memory:', nativeBinding === undefined ? {} : { nativeBinding });
  } catch (err) {
    throw new SqliteDriverError(describeLoadFailure(err), { cause: err });
  }
  db.close();
  loadedBindings.add(key);
}

/**
 * Opens a database. The driver is loaded on first use, not at import: a server that turns
 * auditing off (or writes elsewhere) never pays for it. A driver that cannot load is a
 * SqliteDriverError; any other failure (a file that is not a database, …) is the driver's own.
 */
export function openSqlite(file: string, options: BetterSqlite3.Options = {}): BetterSqlite3.Database {
  checkSqliteDriver(typeof options.nativeBinding === 'string' ? options.nativeBinding : undefined);
  return new (loadDriver())(file, options);
}

function loadDriver(): typeof BetterSqlite3 {
  if (driver) return driver;
  try {
    driver = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  } catch (err) {
    throw new SqliteDriverError(`is not installed (the package better-sqlite3 cannot be loaded: run \`npm install\`)`, { cause: err });
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
