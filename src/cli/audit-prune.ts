import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { PostgresDriverError } from '../audit/postgres/connection.js';
import { resolvePostgresRetention } from '../audit/postgres/prune.js';
import { AuditLogMissingError, parseSince } from '../audit/query.js';
import type { AuditPruneBounds } from '../audit/reader.js';
import { databaseBytesInUse, INCREMENTAL, MIN_RETENTION_BYTES, pruneNow, resolveRetention, type PruneBounds } from '../audit/retention.js';
import { SqliteDriverError } from '../audit/sqlite-driver.js';
import { knownSchemaVersion, openDatabase } from '../audit/sqlite-schema.js';
import { isJsonlTrail, locateTrail, openTrailReader, type Trail, type TrailOptions } from './audit-trail.js';
import { ExitCode, reportError, scrubPaths, UsageError, type CliIo } from './errors.js';
import { sanitize } from '../io/sanitize.js';

export interface PruneCliOptions extends TrailOptions {
  olderThan?: string;
  maxBytes?: string;
  maxRows?: string;
  vacuum?: boolean;
}

/**
 * `toolwright audit prune`'s action (audit-command.ts defines the command): `parent` holds the
 * options given before `prune` (`audit --db x prune`).
 */
export async function auditPruneAction(options: PruneCliOptions, parent: Record<string, unknown>, io: CliIo): Promise<number> {
  // `audit --db x prune`: the database and config named before `prune` count too, the query's filters do not.
  const { db, config, ...filters } = parent as TrailOptions & Record<string, unknown>;
  const stray = Object.keys(filters).find((key) => filters[key] !== undefined);
  if (stray)
    return reportError(new UsageError(`--${kebab(stray)} filters what \`toolwright audit\` shows; \`audit prune\` takes --older-than and --max-bytes`), io);
  return runAuditPruneOnTrail({ db, config, ...definedOnly(options) }, io);
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Prunes the trail the options name: PostgreSQL's through its reader, SQLite's with runAuditPrune. */
async function runAuditPruneOnTrail(options: PruneCliOptions, io: CliIo, now: Date = new Date()): Promise<number> {
  let trail: Trail;
  try {
    trail = locateTrail(options, options.olderThan === undefined && options.maxRows === undefined && options.maxBytes === undefined);
  } catch (err) {
    if (err instanceof UsageError) return reportError(err, io);
    throw err;
  }
  if (isJsonlTrail(trail.file))
    return reportError(
      new UsageError(
        `${scrubPaths(trail.file)} is a JSON-lines trail: it is rotated by size as it is written (server.audit.retention.maxBytes), not pruned on demand; pruning by age needs the SQLite trail (npm install better-sqlite3)`,
      ),
      io,
    );
  if (!trail.postgres) {
    if (options.maxRows !== undefined) return reportError(new UsageError('--max-rows bounds a PostgreSQL trail; a SQLite trail is bounded by --max-bytes'), io);
    return runAuditPrune(options, io, now);
  }
  return prunePostgresTrail(trail, options, io, now);
}

/** `audit prune` on a PostgreSQL trail: by age and rows, in the server pruner's small steps. */
async function prunePostgresTrail(trail: Trail, options: PruneCliOptions, io: CliIo, now: Date): Promise<number> {
  const reader = openTrailReader(trail);
  try {
    if (options.maxBytes !== undefined || options.vacuum)
      throw new UsageError('--max-bytes and --vacuum are for a SQLite trail; a PostgreSQL trail is bounded by --older-than and --max-rows');
    const bounds: AuditPruneBounds = {};
    const labels: Labels = {};
    if (options.olderThan !== undefined || options.maxRows !== undefined) {
      if (options.olderThan !== undefined) {
        const olderThan = parseSince(options.olderThan, now);
        if (!olderThan)
          throw new UsageError(`--older-than must be a duration such as 30d or 12h, or an ISO time such as 2026-07-01 (got "${sanitize(options.olderThan)}")`);
        bounds.olderThan = olderThan;
        labels.age = `older than ${olderThan.toISOString()}`;
      }
      if (options.maxRows !== undefined) {
        if (!/^\d{1,15}$/.test(options.maxRows) || Number(options.maxRows) < 1)
          throw new UsageError(`--max-rows must be a positive integer (got "${sanitize(options.maxRows)}")`);
        bounds.maxRows = Number(options.maxRows);
        labels.size = `beyond the newest ${count(bounds.maxRows)}`;
      }
    } else {
      const policy = resolvePostgresRetention(trail.postgres!.retention);
      if (!policy) {
        io.stdout(
          'Nothing pruned: the retention policy keeps every record (server.audit.retention: false). Pass --older-than or --max-rows to prune anyway.\n',
        );
        return ExitCode.ok;
      }
      if (policy.maxAgeMs !== undefined) {
        bounds.olderThan = new Date(now.getTime() - policy.maxAgeMs);
        labels.age = `older than ${policy.maxAgeMs / 86_400_000} days`;
      }
      if (policy.maxRows !== undefined) {
        bounds.maxRows = policy.maxRows;
        labels.size = `beyond the newest ${count(policy.maxRows)}`;
      }
    }
    const result = await reader.prune(bounds);
    const removed = result.byAge + result.byBound;
    const parts = [...(labels.age ? [`${count(result.byAge)} ${labels.age}`] : []), ...(labels.size ? [`${count(result.byBound)} ${labels.size}`] : [])];
    io.stdout(`Removed ${count(removed)} record${removed === 1 ? '' : 's'} (${parts.join('; ')}) from ${trail.file}; ${count(await reader.count())} remain.\n`);
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof AuditLogMissingError) {
      io.stderr(`toolwright: no audit log at ${trail.file}${trail.hint}\n`);
      return ExitCode.usage;
    }
    if (err instanceof UsageError || err instanceof PostgresDriverError) return reportError(new UsageError(err.message), io);
    io.stderr(
      `toolwright: cannot prune the audit log ${trail.file}: ${err instanceof Error ? err.message || (err as NodeJS.ErrnoException).code : String(err)}\n`,
    );
    return ExitCode.failure;
  } finally {
    await reader.close().catch(() => {});
  }
}

/**
 * Deletes what the policy condemns, in the same small steps as a server's background pruner
 * (other writers get the database between steps), returns the freed pages to the operating
 * system where the file allows it, and says how many records went. `--older-than` and
 * `--max-bytes` replace the configured policy: with either, only the bounds given apply.
 * Exit codes: 0 done (also when nothing was due), 1 usage (bad flag, no such database),
 * 2 the database cannot be pruned.
 */
export function runAuditPrune(options: PruneCliOptions, io: CliIo, now: Date = new Date()): number {
  let file = options.db ?? '';
  try {
    const flagged = options.olderThan !== undefined || options.maxBytes !== undefined;
    const trail = locateTrail(options, !flagged);
    file = trail.file;
    const bounds: PruneBounds = {};
    const labels: Labels = {};
    if (flagged) {
      if (options.olderThan !== undefined) {
        const olderThan = parseSince(options.olderThan, now);
        if (!olderThan)
          throw new UsageError(`--older-than must be a duration such as 30d or 12h, or an ISO time such as 2026-07-01 (got "${sanitize(options.olderThan)}")`);
        bounds.olderThan = olderThan;
        labels.age = `older than ${olderThan.toISOString()}`;
      }
      if (options.maxBytes !== undefined) {
        bounds.maxBytes = parseByteSize(options.maxBytes);
        labels.size = `to fit ${formatBytes(bounds.maxBytes)}`;
      }
    } else {
      const policy = resolveRetention(trail.retention);
      if (!policy) {
        io.stdout(
          'Nothing pruned: the retention policy keeps every record (server.audit.retention: false). Pass --older-than or --max-bytes to prune anyway.\n',
        );
        return ExitCode.ok;
      }
      if (policy.maxAgeMs !== undefined) {
        bounds.olderThan = new Date(now.getTime() - policy.maxAgeMs);
        labels.age = `older than ${policy.maxAgeMs / 86_400_000} days`;
      }
      if (policy.maxBytes !== undefined) {
        bounds.maxBytes = policy.maxBytes;
        labels.size = `to fit ${formatBytes(policy.maxBytes)}`;
      }
    }
    // better-sqlite3 would create an empty file for a mistyped path; say so instead.
    if (!existsSync(file)) throw new AuditLogMissingError(file);
    io.stdout(prune(file, bounds, labels, options.vacuum === true));
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof AuditLogMissingError) {
      io.stderr(`toolwright: no audit log at ${scrubPaths(err.file)}\n`);
      return ExitCode.usage;
    }
    // A driver that cannot load is a set-up problem whose message names the fix.
    if (err instanceof UsageError || err instanceof SqliteDriverError) return reportError(new UsageError(err.message), io);
    // Never echo driver internals (they may carry the absolute path): one line, paths scrubbed.
    io.stderr(`toolwright: cannot prune the audit log ${scrubPaths(file)}: ${scrubPaths(err instanceof Error ? err.message : String(err))}\n`);
    return ExitCode.failure;
  }
}

/** How the bounds read in the summary. */
interface Labels {
  age?: string;
  size?: string;
}

function prune(file: string, bounds: PruneBounds, labels: Labels, vacuum: boolean): string {
  const db = openDatabase(file, { fileMustExist: true });
  try {
    // A server may be writing: wait for its commit instead of failing (each of ours is short too).
    db.pragma('busy_timeout = 5000');
    knownSchemaVersion(db);
    // Measured the same way before and after: with the write-ahead log's pages moved into the
    // file (a checkpoint), the file alone. Counting the log's size, or measuring before its
    // pages are moved in, reported a prune that removed nothing as a file that grew.
    db.pragma('wal_checkpoint(PASSIVE)');
    const before = { records: databaseBytesInUse(db), file: statSync(file).size };
    const result = pruneNow(db, bounds, pauseAsLongAs);
    const notes: string[] = [];
    if (vacuum) {
      // Rewrites the file without its free pages, and in incremental mode from then on.
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
    } else if (db.pragma('auto_vacuum', { simple: true }) !== INCREMENTAL && (db.pragma('freelist_count', { simple: true }) as number) > 0) {
      notes.push(
        `${basename(file)} predates incremental vacuum: new records reuse the freed space, but the file only shrinks after \`toolwright audit prune --vacuum\` (run it once while no server writes to it: it blocks them meanwhile).`,
      );
    }
    // Moves the WAL's pages into the file (and so truncates it) now, without waiting for writers or readers.
    db.pragma('wal_checkpoint(PASSIVE)');
    const removed = result.byAge + result.bySize;
    const parts = [...(labels.age ? [`${count(result.byAge)} ${labels.age}`] : []), ...(labels.size ? [`${count(result.bySize)} ${labels.size}`] : [])];
    const after = { records: databaseBytesInUse(db), file: statSync(file).size };
    const wal = walBytes(file);
    const size =
      `${basename(file)}: ${formatBytes(after.records)} of records${change(before.records, after.records)}, file ${formatBytes(after.file)}${change(before.file, after.file)}` +
      (wal > 0 ? `, and a ${formatBytes(wal)} write-ahead log (-wal) that SQLite reuses rather than grows` : '');
    return [`Removed ${count(removed)} record${removed === 1 ? '' : 's'} (${parts.join('; ')}).`, size, ...notes].join('\n') + '\n';
  } finally {
    db.close();
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Between two steps, sleeps as long as the step took (1 to 20 ms): the write lock is free at
 * least half the time, so a server's insert waiting in SQLite's busy handler (which retries
 * after 1, 2, 5, 10… ms) gets it after a step or two, whatever the size of the prune.
 */
function pauseAsLongAs(stepMs: number): void {
  Atomics.wait(sleeper, 0, 0, Math.min(20, Math.max(1, stepMs)));
}

function walBytes(file: string): number {
  return existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;
}

/** "(unchanged)", or what it was: the change a prune made, said as it is. */
function change(before: number, after: number): string {
  return before === after ? ' (unchanged)' : ` (was ${formatBytes(before)})`;
}

const count = (n: number) => n.toLocaleString('en-US');

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `--max-bytes`: bytes, or with a binary unit: 512k, 256M, 1G, 1.5GiB (k = 1024). */
export function parseByteSize(text: string): number {
  const match = /^(\d{1,15}(?:\.\d{1,6})?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  const bytes = match ? Math.floor(Number(match[1]) * SIZE_UNITS[match[2].toLowerCase()]) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < MIN_RETENTION_BYTES) {
    throw new UsageError(`--max-bytes must be a size of at least ${MIN_RETENTION_BYTES / 1024}k, such as 256M or 1G (got "${sanitize(text)}")`);
  }
  return bytes;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1).replace(/\.0$/, '')} ${units[unit]}`;
}
