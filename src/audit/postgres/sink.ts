import type { AuditRecord, AuditSink } from '../record.js';
import type { AuditPruneCounts, AuditReader } from '../reader.js';
import { PostgresAuditReader } from './reader.js';
import { checkPostgresDriver, createPool, describePostgresUrl, type PgPool, type PostgresPoolOptions } from './connection.js';
import { PostgresPruner, resolvePostgresRetention, type PostgresRetentionPolicy, type ResolvedPostgresRetention } from './prune.js';
import { INSERT_ROWS, insertParameters, pendingRow, type PendingRow } from './rows.js';
import { migrateAuditSchema } from './schema.js';

export interface PostgresAuditSinkOptions {
  /** How long records are kept (default 30 days and 1,000,000 records); false keeps every record. */
  retention?: PostgresRetentionPolicy | false;
  /** Called when a background prune fails (default: a process warning); the next pass retries. */
  onRetentionError?: (err: unknown) => void;
  pool?: PostgresPoolOptions;
  /** Records whose write failed, kept to be written with the next batch that succeeds (default 10,000; past it the oldest are dropped). */
  maxBacklog?: number;
}

interface Batch {
  rows: PendingRow[];
  done: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The audit trail in PostgreSQL (`server.audit.postgres`), with the same records as SQLite's.
 *
 * Durability, as with SQLite: `record` returns a promise that settles once the record's batch
 * is committed, and the pipeline waits for it before the answer is written, so an answered call
 * is in the database (a SIGKILL after the answer loses nothing). Records that arrive while a
 * batch is on its way form the next batch, sent as one INSERT when that one is committed (or at
 * the end of the turn, or when a transport calls `flush()`): under load one round trip carries
 * many records, with the same guarantee.
 *
 * Faults: each record carries an id made here (UUID), UNIQUE in the table and inserted with
 * `ON CONFLICT DO NOTHING`, so a batch sent again after a lost reply is never recorded twice.
 * A batch whose connection broke under it is tried once more on a fresh one; if that fails, or
 * the server cannot be reached, its records' promises reject, so the server's audit policy applies
 * (server.audit.onFailure: refuse by default), and the records are kept (up to `maxBacklog`)
 * and written first with the next batch or probe that succeeds: answered calls reach the trail
 * once it is back, unless this process ends before. `probe()` is synchronous, as the guard
 * calls it: while the trail is down it throws the last error and starts a check in the
 * background (connect, migrate, write the backlog); once that succeeded, the next probe passes.
 * The pool reconnects on its own: no restart is needed.
 *
 * Text columns cannot hold U+0000 in PostgreSQL: it is stored as U+FFFD (a hostile tool name
 * must not fail the batch, and with it everyone's calls). A record PostgreSQL still refuses for
 * its values (SQLSTATE 22 or 23) fails alone: the batch is written row by row and that record is
 * dropped (`dropped`), never kept to fail every later batch.
 */
export class PostgresAuditSink implements AuditSink {
  /** The database, fit to show: no user or password. */
  readonly where: string;
  private pool?: Promise<PgPool>;
  private migrated?: Promise<void>;
  private open?: Batch;
  private sending = false;
  private backlog: PendingRow[] = [];
  private down?: Error;
  private closed = false;
  private ended?: Promise<void>;
  private readonly retention?: ResolvedPostgresRetention;
  private pruner?: PostgresPruner;
  private readonly maxBacklog: number;
  /** Records dropped because the backlog was full: they are not in the trail. */
  dropped = 0;

  constructor(
    private readonly url: string,
    private readonly options: PostgresAuditSinkOptions = {},
  ) {
    if (!/^postgres(ql)?:\/\//i.test(url)) throw new TypeError('the PostgreSQL audit trail needs a postgres:// or postgresql:// URL');
    checkPostgresDriver();
    this.where = describePostgresUrl(url);
    this.retention = resolvePostgresRetention(options.retention);
    this.maxBacklog = options.maxBacklog ?? 10_000;
  }

  /** Operator API: a reader of this trail (its own small pool; close it). */
  reader(): AuditReader {
    return new PostgresAuditReader(this.url);
  }

  /** Connects and brings the table up to date; rejects with why the trail cannot be written. A server awaits it at start-up. */
  async ready(): Promise<void> {
    try {
      await this.connected();
      this.down = undefined;
    } catch (err) {
      this.down = this.failure(err);
      throw this.down;
    }
  }

  record(entry: AuditRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the PostgreSQL audit trail is closed'));
    if (!this.open) {
      let resolve!: () => void;
      let reject!: (err: Error) => void;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.open = { rows: [], done, resolve, reject };
      setImmediate(() => this.send());
    }
    const row = pendingRow(entry);
    this.open.rows.push(row);
    // Settled per record: PostgreSQL may refuse one record of a batch for its values alone.
    return this.open.done.then(() => {
      if (row.refused) throw this.failure(row.refused);
    });
  }

  /** Sends the open batch now, unless one is on its way (then it follows that one). */
  flush(): void {
    this.send();
  }

  /** Throws while the trail is down (starting a check in the background); passes once a check or a write succeeded. */
  probe(): void {
    if (this.closed) throw new Error('the PostgreSQL audit trail is closed');
    if (!this.down) return;
    const down = this.down;
    this.check();
    throw down;
  }

  /** Applies the retention policy now and resolves with what it removed (nothing when retention is off). */
  async prune(): Promise<AuditPruneCounts> {
    await this.connected();
    return this.pruner ? this.pruner.runPass() : { byAge: 0, byBound: 0 };
  }

  /** Records kept to be written once the trail is back. */
  get backlogSize(): number {
    return this.backlog.length;
  }

  close(): void {
    void this.end();
  }

  /** Writes what is open (and what the backlog holds, if the trail is back), then closes the pool; resolves when it is closed. */
  end(): Promise<void> {
    if (this.ended) return this.ended;
    this.closed = true;
    this.pruner?.stop();
    this.send();
    this.ended = (async () => {
      while (this.sending || this.open) await new Promise((r) => setImmediate(r));
      // Records kept while the trail was down: one last try, if it is back.
      if (this.backlog.length) await this.write([]).catch(() => {});
      const pool = await this.pool?.catch(() => undefined);
      await pool?.end().catch(() => {});
    })();
    return this.ended;
  }

  private send(): void {
    if (this.sending || !this.open) return;
    const batch = this.open;
    this.open = undefined;
    this.sending = true;
    this.write(batch.rows)
      .then(batch.resolve, (err: unknown) => batch.reject(this.failure(err)))
      .finally(() => {
        this.sending = false;
        this.send();
      });
  }

  /** A check while the trail is down: the backlog (or a round trip) through the same lane as batches. */
  private check(): void {
    if (this.sending) return;
    this.sending = true;
    this.write([])
      .catch((err: unknown) => void (this.down = this.failure(err)))
      .finally(() => {
        this.sending = false;
        this.send();
      });
  }

  /** Writes the backlog and `rows` in one statement; on failure keeps them all in the backlog. */
  private async write(rows: PendingRow[]): Promise<void> {
    const all = this.backlog.length ? this.backlog.concat(rows) : rows;
    this.backlog = [];
    try {
      await this.connected();
      const pool = await this.pool!;
      if (all.length === 0) await pool.query('SELECT 1');
      else {
        const params = insertParameters(all);
        try {
          await pool.query(INSERT_ROWS, params);
        } catch (err) {
          if (isDataError(err)) await this.insertEach(pool, all);
          else if (isStaleConnection(err)) await pool.query(INSERT_ROWS, params);
          else throw err;
        }
      }
      this.down = undefined;
    } catch (err) {
      const kept = all.filter((row) => row.refused === undefined);
      this.backlog = kept.length > this.maxBacklog ? kept.slice(kept.length - this.maxBacklog) : kept;
      this.dropped += kept.length - this.backlog.length;
      this.down = this.failure(err);
      throw err;
    }
  }

  /**
   * After a batch was refused for its data (not the connection): each row on its own, so one
   * record PostgreSQL cannot take never blocks the others, nor stays in the backlog to fail every
   * later batch. A row it refuses is dropped (counted in `dropped`) and marked, so its own
   * record's promise rejects while the others resolve.
   */
  private async insertEach(pool: PgPool, rows: PendingRow[]): Promise<void> {
    for (const row of rows) {
      try {
        await pool.query(INSERT_ROWS, insertParameters([row]));
      } catch (err) {
        if (!isDataError(err)) throw err;
        this.dropped++;
        row.refused = err;
      }
    }
  }

  /** Connects and migrates once (again after a failure); starts the background pruner the first time. */
  private connected(): Promise<void> {
    this.migrated ??= (async () => {
      // A pool that could not be made (the driver did not load) is tried again next time.
      const pool = await (this.pool ??= createPool(this.url, this.options.pool).catch((err: unknown) => {
        this.pool = undefined;
        throw err;
      }));
      const client = await pool.connect();
      try {
        await migrateAuditSchema(client);
      } finally {
        client.release();
      }
      if (this.retention && !this.pruner && !this.closed) {
        this.pruner = new PostgresPruner(pool, this.retention, this.options.onRetentionError ?? warnRetentionFailure);
        this.pruner.start();
      }
    })().catch((err: unknown) => {
      this.migrated = undefined;
      throw err;
    });
    return this.migrated;
  }

  /** The error a failed write reports: the database named (without its password), the cause's message. */
  private failure(err: unknown): Error {
    if (err instanceof Error && err.message.startsWith('PostgreSQL audit trail')) return err;
    const message = err instanceof Error ? err.message || (err as NodeJS.ErrnoException).code || err.name : String(err);
    return new Error(`PostgreSQL audit trail at ${this.where}: ${message.replaceAll(this.url, this.where)}`);
  }
}

/**
 * The connection broke under the statement (the server restarted, or closed an idle
 * connection the pool still held): one more try, on a fresh connection, may succeed. A server
 * that refuses connections or does not answer them is down: trying again would only hold the
 * answers longer (up to the connection timeout again).
 */
function isStaleConnection(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') return false;
  if (typeof message === 'string' && /timeout exceeded when trying to connect|Query read timeout/i.test(message)) return false;
  return code === undefined || (typeof code === 'string' && (/^(08|57P0)/.test(code) || /^E[A-Z]+$/.test(code)));
}

/** PostgreSQL refused the values (SQLSTATE class 22, data exception, or 23, integrity), not the connection or the server's state. */
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

function warnRetentionFailure(err: unknown): void {
  process.emitWarning(
    `audit retention: a background prune failed (the next pass retries): ${err instanceof Error ? err.message : String(err)}`,
    'ToolwrightAuditWarning',
  );
}
