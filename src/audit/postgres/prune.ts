import type { AuditPruneCounts } from '../reader.js';
import type { PgQueryable } from './connection.js';
import { AUDIT_TABLE } from './schema.js';

/** How long the PostgreSQL trail keeps records: younger than `maxAgeDays` and among the newest `maxRows`. */
export interface PostgresRetentionPolicy {
  /** Records older than this many days are deleted; false: no age bound. Default 30. */
  maxAgeDays?: number | false;
  /** Only the newest this many records are kept; false: no row bound. Default 1,000,000. */
  maxRows?: number | false;
  /** How often the background pruner runs, in milliseconds (default 10 minutes). */
  intervalMs?: number;
}

export const DEFAULT_POSTGRES_RETENTION = { maxAgeDays: 30, maxRows: 1_000_000, intervalMs: 600_000 } as const;

export interface ResolvedPostgresRetention {
  maxAgeMs?: number;
  maxRows?: number;
  intervalMs: number;
}

/** Fills in the defaults and checks the values; undefined when nothing is to be pruned. */
export function resolvePostgresRetention(policy: PostgresRetentionPolicy | false | undefined): ResolvedPostgresRetention | undefined {
  if (policy === false) return undefined;
  const maxAgeDays = policy?.maxAgeDays ?? DEFAULT_POSTGRES_RETENTION.maxAgeDays;
  const maxRows = policy?.maxRows ?? DEFAULT_POSTGRES_RETENTION.maxRows;
  const intervalMs = policy?.intervalMs ?? DEFAULT_POSTGRES_RETENTION.intervalMs;
  if (maxAgeDays !== false && !(typeof maxAgeDays === 'number' && Number.isFinite(maxAgeDays) && maxAgeDays > 0)) {
    throw new RangeError('retention.maxAgeDays must be a positive number of days, or false');
  }
  if (maxRows !== false && !(Number.isSafeInteger(maxRows) && maxRows >= 1)) throw new RangeError('retention.maxRows must be a positive integer, or false');
  if (!(Number.isSafeInteger(intervalMs) && intervalMs >= 1 && intervalMs <= 2_147_483_647)) {
    throw new RangeError('retention.intervalMs must be a positive integer number of milliseconds');
  }
  if (maxAgeDays === false && maxRows === false) return undefined;
  return { ...(maxAgeDays === false ? {} : { maxAgeMs: maxAgeDays * 86_400_000 }), ...(maxRows === false ? {} : { maxRows }), intervalMs };
}

/** Rows one DELETE removes at most: a short statement, so inserts never wait long behind a prune. */
const ROWS_PER_STEP = 1000;

/**
 * Deletes, in statements of at most ROWS_PER_STEP rows each, the records older than
 * `olderThan` and those past the newest `maxRows`. Each step is its own statement (and
 * transaction): an instance's inserts run between them, and two instances pruning at once only
 * delete what the other has not (a DELETE of rows already gone removes nothing).
 */
export async function prunePostgres(
  db: PgQueryable,
  bounds: { olderThan?: Date; maxRows?: number },
  stopped: () => boolean = () => false,
): Promise<AuditPruneCounts> {
  const result: AuditPruneCounts = { byAge: 0, byBound: 0 };
  if (bounds.olderThan) {
    for (;;) {
      const step = await db.query(
        `DELETE FROM ${AUDIT_TABLE} WHERE id IN (SELECT id FROM ${AUDIT_TABLE} WHERE time < $1 ORDER BY time LIMIT ${ROWS_PER_STEP})`,
        [bounds.olderThan],
      );
      result.byAge += step.rowCount ?? 0;
      if ((step.rowCount ?? 0) < ROWS_PER_STEP || stopped()) break;
    }
  }
  if (bounds.maxRows !== undefined && !stopped()) {
    // The id of the newest record past the bound: it and every older one go.
    const edge = await db.query(`SELECT id FROM ${AUDIT_TABLE} ORDER BY id DESC OFFSET $1 LIMIT 1`, [bounds.maxRows]);
    if (edge.rows.length) {
      const last = edge.rows[0].id as string;
      for (;;) {
        const step = await db.query(
          `DELETE FROM ${AUDIT_TABLE} WHERE id IN (SELECT id FROM ${AUDIT_TABLE} WHERE id <= $1 ORDER BY id LIMIT ${ROWS_PER_STEP})`,
          [last],
        );
        result.byBound += step.rowCount ?? 0;
        if ((step.rowCount ?? 0) < ROWS_PER_STEP || stopped()) break;
      }
    }
  }
  return result;
}

/** The first pass runs this soon after the trail is first written (or after the interval, if shorter). */
const FIRST_PASS_DELAY_MS = 5_000;

/** Applies a retention policy in the background, a pass every `intervalMs`; its timer never keeps a process alive. */
export class PostgresPruner {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<AuditPruneCounts>;
  private stopped = false;

  constructor(
    private readonly db: PgQueryable,
    private readonly policy: ResolvedPostgresRetention,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.schedule(Math.min(FIRST_PASS_DELAY_MS, this.policy.intervalMs));
  }

  /** Runs a pass now (or joins the one running) and resolves with what it removed. */
  runPass(): Promise<AuditPruneCounts> {
    this.pass ??= prunePostgres(
      this.db,
      {
        ...(this.policy.maxAgeMs === undefined ? {} : { olderThan: new Date(Date.now() - this.policy.maxAgeMs) }),
        ...(this.policy.maxRows === undefined ? {} : { maxRows: this.policy.maxRows }),
      },
      () => this.stopped,
    ).finally(() => {
      this.pass = undefined;
      if (!this.stopped) this.schedule(this.policy.intervalMs);
    });
    return this.pass;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runPass().catch((err: unknown) => this.onError(err));
    }, delayMs).unref();
  }
}
