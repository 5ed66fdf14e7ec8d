import { DefaultAuditSink } from '../audit/default-sink.js';
import { FanoutAuditSink } from '../audit/fanout-sink.js';
import { JsonlAuditSink } from '../audit/jsonl-sink.js';
import { JsonlTrailSink } from '../audit/jsonl-trail.js';
import type { AuditSink } from '../audit/record.js';
import { PostgresAuditSink } from '../audit/postgres/sink.js';
import { SqliteAuditSink } from '../audit/sqlite-sink.js';
import type { StateLocation } from '../config/state-dir.js';
import type { ToolServer } from '../server/server.js';
import { UsageError, type CliIo } from './errors.js';

/**
 * At start-up, before anything is served: says on stderr (stdout is the stdio protocol) where
 * state and the audit trail are, and opens the trail to check it can be written. A trail that
 * cannot be written stops start-up under the default policy (server.audit.onFailure: refuse);
 * under 'warn' it is said once here and the server serves on, counting what it loses.
 */
export async function checkAuditTrail(server: ToolServer, state: StateLocation, io: CliIo): Promise<void> {
  const where = server.audit ? filesOf(server.audit).join(', ') || 'a custom sink' : 'off';
  const why = state.project ? '' : ' (the working directory is not a project this user can write: no package.json, .git, toolwright config or workspace/)';
  io.stderr(`toolwright: state in ${state.dir}${why}; audit trail: ${where}\n`);
  const guard = server.auditGuard;
  if (!server.audit || !guard) return;
  try {
    // A database trail connects (and migrates) first; a file trail is ready when built.
    await server.audit.ready?.();
    server.audit.probe?.();
  } catch (err) {
    const reason = describe(err);
    if (guard.policy === 'refuse') {
      throw new UsageError(
        `the audit trail cannot be written (${reason}). Point it elsewhere ($TOOLWRIGHT_AUDIT_DIR, or server.audit.sqlite or server.audit.postgres in a config), ` +
          'turn it off (server.audit: false), or serve without it (server.audit.onFailure: "warn")',
      );
    }
    guard.markWarned();
    io.stderr(
      `toolwright: warning: the audit trail cannot be written (${reason}); serving without it (server.audit.onFailure: "warn"), lost records are counted\n`,
    );
  }
}

/** At shutdown: how many records were lost and requests refused, if any. */
export function reportAuditLosses(server: ToolServer, io: CliIo): void {
  const guard = server.auditGuard;
  if (!guard || (guard.lost === 0 && guard.refused === 0)) return;
  const refused = guard.refused ? `, ${guard.refused} request(s) refused while it was unavailable` : '';
  io.stderr(`toolwright: audit trail: ${guard.lost} record(s) could not be written${refused}\n`);
}

function filesOf(sink: AuditSink): string[] {
  if (sink instanceof SqliteAuditSink || sink instanceof JsonlAuditSink || sink instanceof JsonlTrailSink) return [sink.file];
  if (sink instanceof PostgresAuditSink) return [sink.where];
  if (sink instanceof DefaultAuditSink) return sink.file === undefined ? ['memory'] : [sink.file];
  if (sink instanceof FanoutAuditSink) return sink.sinks.flatMap(filesOf);
  return [];
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
