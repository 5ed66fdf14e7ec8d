import { Command } from 'commander';
import type { AuditCliOptions } from './audit.js';
import type { PruneCliOptions } from './audit-prune.js';
import type { CliIo } from './errors.js';

// The definitions only: the trail readers, retention and drivers load when `audit` runs (see program.ts).

/** audit/query.ts's DEFAULT_QUERY_LIMIT, for the help text without loading the readers (a test pins that they agree). */
const DEFAULT_LIMIT_SHOWN = 100;

const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/**
 * `toolwright audit`: reads the audit trail; `toolwright audit prune` deletes what its
 * retention policy condemns. Register it with `program.addCommand(auditCommand(io, setCode))`;
 * the exit code goes to `setCode` (0 ok, 1 usage or no audit log there, 2 the log cannot be
 * read). `addCommand` does not pass the parent's settings on, so the command sets its own:
 * commander errors throw (a CommanderError, never process.exit) and print to `io`.
 */
export function auditCommand(io: CliIo = processIo, setCode: (code: number) => void = (code) => void (process.exitCode = code)): Command {
  return (
    new Command('audit')
      .exitOverride()
      .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
      // Options after `prune` are prune's own (both have --db and --config).
      .enablePositionalOptions()
      .description('show recorded tool calls, oldest first (the newest --limit of them); `audit prune` deletes old ones')
      .option(
        '--db <file>',
        "audit database: a SQLite file or a postgres:// URL (default: the config's, else .toolwright/audit.db under $TOOLWRIGHT_AUDIT_DIR or the working directory)",
      )
      .option('--config <file>', 'toolwright.config.json or .yaml whose trail to read (default: the one in this directory, if any)')
      .option('--tool <name>', 'only calls of this tool')
      .option('--caller <id>', "only calls of this caller (the caller's id: a token's subject, an API key's principal)")
      .option('--client-id <id>', 'only calls made with tokens issued to this OAuth client')
      .option('--tenant <name>', 'only calls of callers in this tenant')
      .option('--upstream <name>', 'only requests a gateway relayed to this upstream (its name under upstreams:)')
      .option('--since <when>', 'only calls since a duration ago (30m, 1h, 2d) or an ISO time')
      .option('--until <when>', 'only calls before a duration ago (30m, 1h, 2d) or an ISO time')
      .option('--errors', 'only calls that answered with an error')
      .option('--limit <n>', `at most this many calls, the newest (default ${DEFAULT_LIMIT_SHOWN})`)
      .option('--all', 'every matching call (with --json: streamed, to export the trail before it is pruned)')
      .option('--after-id <id>', 'only records stored after this id (each --json line carries its id: resume where the last export stopped)')
      .option('--json', 'one JSON object per line, streamed')
      .action(async (options: AuditCliOptions) => setCode(await (await import('./audit.js')).runAudit(options, io)))
      .addCommand(auditPruneCommand(io, setCode))
  );
}

/** `toolwright audit prune`: applies a retention policy now (see runAuditPrune). */
export function auditPruneCommand(io: CliIo, setCode: (code: number) => void): Command {
  return new Command('prune')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .description("delete audit records now: the config's retention policy (default 30 days and 256 MiB), or the bounds given")
    .option('--db <file>', "audit database (default: the config's, else .toolwright/audit.db under $TOOLWRIGHT_AUDIT_DIR or the working directory)")
    .option('--config <file>', 'toolwright.config.json or .yaml whose trail and policy to use (default: the one in this directory, if any)')
    .option('--older-than <when>', 'delete records older than a duration (30d, 12h) or an ISO time, instead of the policy')
    .option('--max-bytes <size>', 'SQLite: delete the oldest records until the rest fit in this size (bytes, or 512k, 256M, 1G), instead of the policy')
    .option('--max-rows <n>', 'PostgreSQL: keep only the newest n records, instead of the policy')
    .option('--vacuum', 'rewrite the whole file (VACUUM): shrinks a file made before incremental vacuum and converts it; blocks writers meanwhile')
    .action(async (options: PruneCliOptions, command: Command) =>
      setCode(await (await import('./audit-prune.js')).auditPruneAction(options, command.parent?.opts() ?? {}, io)),
    );
}
