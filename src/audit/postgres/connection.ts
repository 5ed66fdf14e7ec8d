import { packageInstalled } from '../../runtime/optional-package.js';

/**
 * The PostgreSQL connection pool, on `pg` (an optional peer dependency) loaded only when a PostgreSQL trail is configured
 * (a dynamic import: nothing else in toolwright imports `pg`). The published declarations name
 * only the small interfaces below, never `pg`'s types: a project using toolwright without
 * @types/pg still compiles (see sqlite-types.ts for the same rule with SQLite).
 */

interface PgQueryResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number | null;
}

export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
}

interface PgPoolClient extends PgQueryable {
  /** Returns the connection to the pool; with an error, the pool closes it instead. */
  release(err?: Error | boolean): void;
}

export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** Thrown when `pg` cannot be loaded: the set-up problem, with its fix. */
export class PostgresDriverError extends Error {
  constructor(cause: unknown) {
    super(
      `the PostgreSQL audit trail needs the "pg" package, which cannot be loaded (${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}); install it with \`npm install pg\``,
    );
    this.name = 'PostgresDriverError';
  }
}

export interface PostgresPoolOptions {
  /** Connections at most (default 4: the sink writes one batch at a time, the pruner and a probe use others). */
  max?: number;
  /** How long to wait for a connection before a write fails (default 5000 ms). */
  connectTimeoutMs?: number;
  /** How long one statement may take before it fails (default 10000 ms): a server that hangs fails the write instead of holding answers. */
  queryTimeoutMs?: number;
}

/**
 * Checks now, when a PostgreSQL sink or reader is built, that `pg` (an optional peer dependency)
 * is installed: missing, it is a PostgresDriverError naming `npm install pg` at start-up, not a
 * failed write at the first call. Loading it waits for the first connection.
 */
export function checkPostgresDriver(): void {
  if (!packageInstalled('pg')) throw new PostgresDriverError(new Error('it is not installed'));
}

/**
 * A pool for `url`. A connection that breaks (the server restarted, the network dropped) is
 * dropped from the pool and the next query opens a new one: each instance reconnects on its own.
 * Errors on idle connections are ignored here (the next query on the pool reports its own):
 * an unhandled 'error' event would end the process.
 */
export async function createPool(url: string, options: PostgresPoolOptions = {}): Promise<PgPool> {
  let mod: { default?: { Pool: new (config: Record<string, unknown>) => PgPool }; Pool?: new (config: Record<string, unknown>) => PgPool };
  try {
    mod = (await import('pg')) as typeof mod;
  } catch (err) {
    throw new PostgresDriverError(err);
  }
  const Pool = mod.Pool ?? mod.default!.Pool;
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    query_timeout: options.queryTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'toolwright',
    // Idle connections must not keep a process alive that has nothing else to do.
    allowExitOnIdle: true,
  });
  pool.on('error', () => {});
  return pool;
}

/**
 * A connection URL fit to show: scheme, host, port and database, never the user's password
 * (nor the query string, which may carry one: `?password=`, `sslpassword=`).
 */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.host || 'localhost';
    return `${parsed.protocol}//${host}${parsed.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
