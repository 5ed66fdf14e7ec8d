import { join } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_AUDIT_DB } from '../audit/default-sink.js';
import { AuditLogMissingError, DEFAULT_QUERY_LIMIT, parseSince, queryAuditLog, type AuditQuery } from '../audit/query.js';
import type { AuditRecord } from '../audit/record.js';
import { ExitCode, reportError, scrubPaths, UsageError, type CliIo } from './errors.js';
import { sanitize } from './sanitize.js';

export interface AuditCliOptions {
  db?: string;
  tool?: string;
  since?: string;
  errors?: boolean;
  limit?: string;
  json?: boolean;
}

const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/**
 * `toolwright audit`: reads the audit trail. Register it with
 * `program.addCommand(auditCommand(io, setCode))`; the exit code goes to
 * `setCode` (0 ok, 1 usage, 2 no readable audit log). `addCommand` does not
 * pass the parent's settings on, so the command sets its own: commander
 * errors throw (a CommanderError, never process.exit) and print to `io`.
 */
export function auditCommand(io: CliIo = processIo, setCode: (code: number) => void = (code) => void (process.exitCode = code)): Command {
  return new Command('audit')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .description('show recorded tool calls, oldest first (the newest --limit of them)')
    .option('--db <file>', 'audit database (default: .toolwright/audit.db under $TOOLWRIGHT_AUDIT_DIR or the working directory)')
    .option('--tool <name>', 'only calls of this tool')
    .option('--since <when>', 'only calls since a duration ago (30m, 1h, 2d) or an ISO time')
    .option('--errors', 'only calls that answered with an error')
    .option('--limit <n>', 'at most this many calls', String(DEFAULT_QUERY_LIMIT))
    .option('--json', 'one JSON object per line')
    .action((options: AuditCliOptions) => setCode(runAudit(options, io)));
}

/** The command's work, callable without commander. Returns the exit code. */
export function runAudit(options: AuditCliOptions, io: CliIo, now: Date = new Date()): number {
  const file = options.db ?? join(process.env.TOOLWRIGHT_AUDIT_DIR || '.', DEFAULT_AUDIT_DB);
  try {
    const records = queryAuditLog(file, toQuery(options, now));
    io.stdout(options.json ? records.map((r) => `${recordJson(r)}\n`).join('') : formatAuditTable(records));
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof AuditLogMissingError) {
      // The default path is relative to the working directory: say where servers write it.
      const hint = options.db === undefined ? ' (a server started in this directory writes it once it has served a call)' : '';
      io.stderr(`toolwright: no audit log at ${scrubPaths(file)}${hint}\n`);
      return ExitCode.failure;
    }
    // Never echo driver internals (they may carry the absolute path): one line, paths scrubbed.
    return reportError(err instanceof UsageError ? err : new Error(`cannot read the audit log ${file}: ${err instanceof Error ? err.message : String(err)}`), io);
  }
}

function toQuery(options: AuditCliOptions, now: Date): AuditQuery {
  const query: AuditQuery = { errorsOnly: options.errors === true };
  if (options.tool !== undefined) query.tool = options.tool;
  if (options.since !== undefined) {
    const since = parseSince(options.since, now);
    if (!since) throw new UsageError(`--since must be a duration such as 30m, 1h or 2d, or an ISO time such as 2026-07-28T10:00:00Z (got "${sanitize(options.since)}")`);
    query.since = since;
  }
  const limit = Number(options.limit ?? DEFAULT_QUERY_LIMIT);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  query.limit = limit;
  return query;
}

/** The record with its arguments as JSON (not as a string holding JSON). */
function recordJson(record: AuditRecord): string {
  const { argumentsJson, ...rest } = record;
  return JSON.stringify({ ...rest, arguments: JSON.parse(argumentsJson) as unknown });
}

const ARGUMENTS_WIDTH = 60;

/** A fixed-width table for people; every field is sanitized (tool names and arguments come from clients). */
export function formatAuditTable(records: AuditRecord[]): string {
  if (records.length === 0) return 'No recorded calls match.\n';
  const header = ['TIME', 'TOOL', 'STATUS', 'MS', 'PRINCIPAL', 'CLIENT', 'ARGUMENTS'];
  const rows = records.map((r) => [
    r.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    cell(r.tool, 32),
    r.status + (r.isError && r.status === 'ok' ? ' (isError)' : '') + (r.errorCode !== null ? ` ${r.errorCode}` : ''),
    r.durationMs < 10 ? r.durationMs.toFixed(1) : String(Math.round(r.durationMs)),
    cell(r.principal ?? '-', 24),
    cell(r.clientName ?? '-', 24),
    cell(r.argumentsJson, ARGUMENTS_WIDTH),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  const footer = records.some((r) => r.correlationId) ? '\nInternal errors carry a correlation id: run with --json to see it, then search the server log for it.\n' : '';
  return `${[line(header), ...rows.map(line)].join('\n')}\n${footer}`;
}

function cell(text: string, width: number): string {
  const flat = sanitize(text).replace(/\s+/g, ' ');
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}
