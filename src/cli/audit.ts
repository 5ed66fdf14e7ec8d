import { describePostgresUrl, PostgresDriverError } from '../audit/postgres/connection.js';
import { AuditLogMissingError, DEFAULT_QUERY_LIMIT, parseSince, type AuditQuery } from '../audit/query.js';
import type { AuditReader, StoredAuditRecord } from '../audit/reader.js';
import type { AuditRecord } from '../audit/record.js';
import { SqliteDriverError } from '../audit/sqlite-driver.js';
import { locateTrail, openTrailReader, type TrailOptions } from './audit-trail.js';
import { ExitCode, reportError, scrubPaths, UsageError, type CliIo } from './errors.js';
import { sanitize } from '../io/sanitize.js';

export interface AuditCliOptions extends TrailOptions {
  tool?: string;
  caller?: string;
  clientId?: string;
  tenant?: string;
  upstream?: string;
  since?: string;
  until?: string;
  errors?: boolean;
  limit?: string;
  all?: boolean;
  afterId?: string;
  json?: boolean;
}

/** The command's work, callable without commander. Resolves with the exit code. */
export async function runAudit(options: AuditCliOptions, io: CliIo, now: Date = new Date()): Promise<number> {
  // A postgres:// --db is shown without its password, whatever fails.
  let file = options.db !== undefined && /^postgres(ql)?:\/\//i.test(options.db) ? describePostgresUrl(options.db) : (options.db ?? '');
  let hint = '';
  let reader: AuditReader | undefined;
  try {
    const query = toQuery(options, now);
    const trail = locateTrail(options, false);
    ({ file, hint } = trail);
    reader = openTrailReader(trail);
    const records = reader.query(query);
    if (options.json) await writeJsonLines(records, io);
    else {
      const all: AuditRecord[] = [];
      for await (const record of records) all.push(record);
      io.stdout(formatAuditTable(all));
    }
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof AuditLogMissingError) {
      // A path that holds no log is the caller's to fix, like a missing --config: a usage error.
      io.stderr(`toolwright: no audit log at ${scrubPaths(file)}${hint}\n`);
      return ExitCode.usage;
    }
    // A driver that cannot load is a set-up problem whose message names the fix.
    if (err instanceof UsageError || err instanceof SqliteDriverError || err instanceof PostgresDriverError)
      return reportError(new UsageError(err.message), io);
    // Never echo driver internals (they may carry the absolute path): one line, paths scrubbed.
    return reportError(
      new Error(`cannot read the audit log ${file}: ${err instanceof Error ? err.message || (err as NodeJS.ErrnoException).code : String(err)}`),
      io,
    );
  } finally {
    await reader?.close().catch(() => {});
  }
}

function toQuery(options: AuditCliOptions, now: Date): AuditQuery {
  const query: AuditQuery = { errorsOnly: options.errors === true };
  if (options.tool !== undefined) query.tool = options.tool;
  if (options.caller !== undefined) query.principal = options.caller;
  if (options.clientId !== undefined) query.clientId = options.clientId;
  if (options.tenant !== undefined) query.tenant = options.tenant;
  if (options.upstream !== undefined) query.upstream = options.upstream;
  for (const bound of ['since', 'until'] as const) {
    const text = options[bound];
    if (text === undefined) continue;
    const when = parseSince(text, now);
    if (!when)
      throw new UsageError(`--${bound} must be a duration such as 30m, 1h or 2d, or an ISO time such as 2026-07-28T10:00:00Z (got "${sanitize(text)}")`);
    query[bound] = when;
  }
  if (options.afterId !== undefined) {
    if (!/^\d{1,15}$/.test(options.afterId)) throw new UsageError('--after-id must be a record id (a non-negative integer)');
    query.afterId = Number(options.afterId);
  }
  if (options.all) {
    if (options.limit !== undefined) throw new UsageError('choose one of --all and --limit');
    if (!options.json) throw new UsageError('--all needs --json (a table of the whole trail is not for reading; export it)');
    query.limit = false;
    return query;
  }
  const limit = Number(options.limit ?? DEFAULT_QUERY_LIMIT);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  query.limit = limit;
  return query;
}

/** Output is handed over in pieces of about this many characters (memory stays constant). */
const CHUNK_CHARS = 64 * 1024;

/**
 * One JSON object per line, written as the rows are read: memory holds one piece of output
 * at a time, whatever the trail's size. When stdout cannot keep up, waits for it to drain;
 * when its reader has gone (`| head`), stops reading.
 */
async function writeJsonLines(rows: AsyncIterable<StoredAuditRecord>, io: CliIo): Promise<void> {
  let gone = false;
  const onError = () => void (gone = true); // EPIPE reported later: the reader closed the pipe
  process.stdout.on('error', onError);
  try {
    let chunk = '';
    for await (const row of rows) {
      chunk += `${rowJson(row)}\n`;
      if (chunk.length < CHUNK_CHARS) continue;
      gone ||= !write(io, chunk);
      chunk = '';
      if (!gone && process.stdout.writableNeedDrain) await drained(process.stdout);
      if (gone || process.stdout.destroyed) return; // `return` from for…of closes the database
    }
    if (chunk && !gone) write(io, chunk);
  } finally {
    process.stdout.off('error', onError);
  }
}

/** Hands `text` over; false when the reader has gone (`| head` closed the pipe): stop, like any filter. */
function write(io: CliIo, text: string): boolean {
  try {
    io.stdout(text);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return false;
    throw err;
  }
}

function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** A stored record as JSON: its id first (the cursor for --after-id), the arguments as an object. */
function rowJson(row: StoredAuditRecord): string {
  const { argumentsJson, id, ...rest } = row;
  // Parsed, not spliced in: a line can never carry more (or less) than one JSON value.
  return JSON.stringify({ id, ...rest, arguments: JSON.parse(argumentsJson) as unknown });
}

const ARGUMENTS_WIDTH = 60;

/** A fixed-width table for people; every field is sanitized (tool names and arguments come from clients). */
export function formatAuditTable(records: AuditRecord[]): string {
  if (records.length === 0) return 'No recorded calls match.\n';
  // A gateway's trail: which upstream served each request ('-': the server's own), a column only when some record names one.
  const relayed = records.some((r) => r.upstream !== undefined);
  const header = ['TIME', 'TOOL', ...(relayed ? ['UPSTREAM'] : []), 'STATUS', 'MS', 'PRINCIPAL', 'CLIENT', 'ARGUMENTS'];
  const rows = records.map((r) => [
    r.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    cell(r.tool, 32),
    ...(relayed ? [cell(r.upstream ?? '-', 24)] : []),
    r.status +
      (r.isError && r.status === 'ok' ? ' (isError)' : '') +
      (r.reason && r.reason !== r.status ? ` (${r.reason})` : '') +
      (r.errorCode !== null ? ` ${r.errorCode}` : ''),
    r.durationMs < 10 ? r.durationMs.toFixed(1) : String(Math.round(r.durationMs)),
    callerCell(r),
    cell(r.clientName ?? '-', 24),
    cell(r.argumentsJson, ARGUMENTS_WIDTH),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const footer = records.some((r) => r.correlationId)
    ? '\nInternal errors carry a correlation id: run with --json to see it, then search the server log for it.\n'
    : '';
  return `${[line(header), ...rows.map(line)].join('\n')}\n${footer}`;
}

/** The caller: its id, with its tenant (`tenant/id`) and OAuth client (`(client id)`) when recorded. */
function callerCell(r: AuditRecord): string {
  const extras = r.tenant !== undefined || r.clientId !== undefined;
  const text = `${r.tenant !== undefined ? `${r.tenant}/` : ''}${r.principal ?? '-'}${r.clientId !== undefined ? ` (${r.clientId})` : ''}`;
  return cell(text, extras ? 40 : 24);
}

function cell(text: string, width: number): string {
  const flat = sanitize(text).replace(/\s+/g, ' ');
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}
