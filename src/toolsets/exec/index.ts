import { dirname } from 'node:path';
import { resolveWorkingDirectoryIn } from '../../policy/command-cwd.js';
import { buildEnvironment } from '../../policy/command-env.js';
import { CommandPolicy, CommandRefusal, type CompiledCommand } from '../../policy/commands.js';
import { hardenedGitArgs, hardenedGitEnv } from '../../policy/git-hardening.js';
import { checkGitRepository } from './git-guard.js';
import { ToolError, type Tool, type ToolContext, type ToolResult } from '../../server/tool.js';
import { resolveExecOptions, type ExecToolsetOptions, type ResolvedExecOptions } from './options.js';
import { isReadOnlyCall } from './read-only-call.js';
import { runProcess, type ProcessOutcome } from './run-process.js';

export type { ExecToolsetOptions } from './options.js';
export type { AllowedCommand } from '../../policy/commands.js';
export type { CommandEnvOptions } from '../../policy/command-env.js';

interface ExecArgs {
  command: string;
  args?: string[];
  cwd?: string;
}

/** Time the pipeline allows beyond a command's own timeout, so the command reports its timeout (with output) itself. */
const PIPELINE_MARGIN_MS = 5_000;
/** Longest each of the two checking runs of a hardened git may take (both fit in the pipeline margin, before the command). */
const GIT_CHECK_TIMEOUT_MS = 2_000;

/** The exec toolset: `execute_command`. */
export function execTools(options: ExecToolsetOptions): Tool[] {
  const opts = resolveExecOptions(options);
  const policy = new CommandPolicy({ commands: opts.commands, maxArgLength: opts.maxArgLength });
  // Each command's environment is built once: a bad variable name in the config fails at
  // start-up, not per call, and every call of a command sees the same environment.
  const baseEnv = buildEnvironment(opts.env);
  const envs = new Map(
    policy.names.map((name) => {
      const own = policy.get(name)!.entry.env;
      return [name, own ? buildEnvironment(opts.env, own) : baseEnv];
    }),
  );
  const readOnly = policy.allReadOnly;
  const longest = Math.max(opts.timeoutMs, ...policy.names.map((n) => policy.get(n)!.entry.timeoutMs ?? 0));
  return [
    {
      name: 'execute_command',
      title: 'Run an allowed command',
      description: describeTool(policy, opts, readOnly),
      inputSchema: inputSchema(policy, opts),
      outputSchema: OUTPUT_SCHEMA,
      // One tool, one set of annotations (hints for clients): destructive
      // unless every allowed command is read-only. The server's approval
      // follows the command each call runs: none for a read-only one.
      annotations: { title: 'Run an allowed command', readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: false, openWorldHint: !readOnly },
      needsApproval: (args) => !isReadOnlyCall(policy, args),
      timeoutMs: longest + PIPELINE_MARGIN_MS,
      handler: (args: ExecArgs, ctx: ToolContext) => execute(args, ctx, policy, opts, envs),
    },
  ];
}

async function execute(
  args: ExecArgs,
  ctx: ToolContext,
  policy: CommandPolicy,
  opts: ResolvedExecOptions,
  envs: ReadonlyMap<string, Record<string, string>>,
): Promise<ToolResult> {
  const argv = args.args ?? [];
  let command: CompiledCommand;
  let cwd: string;
  let realRoot: string;
  try {
    command = policy.check(args.command, argv);
    ({ cwd, realRoot } = await resolveWorkingDirectoryIn(opts.root, args.cwd));
  } catch (err) {
    if (err instanceof CommandRefusal) throw new ToolError(err.message);
    throw err;
  }
  const { entry } = command;
  const timeoutMs = entry.timeoutMs ?? opts.timeoutMs;
  let run = { args: argv as readonly string[], env: envs.get(args.command)! };
  let outcome: ProcessOutcome;
  try {
    if (command.hardening === 'git') {
      // Discovery stops at the working root: a repository above it is not the workspace's to use.
      run = { args: hardenedGitArgs(argv), env: hardenedGitEnv(run.env, realRoot === '/' ? undefined : dirname(realRoot)) };
      await checkGitRepository({ gitPath: entry.path, cwd, realRoot, env: run.env, signal: ctx.signal, timeoutMs: Math.min(GIT_CHECK_TIMEOUT_MS, timeoutMs) });
    }
    outcome = await runProcess({
      path: entry.path,
      args: run.args,
      cwd,
      env: run.env,
      timeoutMs,
      maxOutputBytes: opts.maxOutputBytes,
      killAfterOutputBytes: opts.killAfterOutputBytes,
      signal: ctx.signal,
    });
  } catch (err) {
    if (err instanceof CommandRefusal) throw new ToolError(err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new ToolError(`${command.name} is allowed, but its executable is missing on this server; ask the operator to install it or fix the configuration.`);
    if (code === 'EACCES')
      throw new ToolError(`${command.name} is allowed, but its executable cannot be run (permission denied); ask the operator to fix the configuration.`);
    throw err;
  }
  return toResult(command.name, argv, outcome, timeoutMs, opts);
}

function toResult(name: string, argv: string[], o: ProcessOutcome, timeoutMs: number, opts: ResolvedExecOptions): ToolResult {
  const structured = {
    exitCode: o.exitCode,
    signal: o.signal,
    stdout: o.stdout.text(),
    stderr: o.stderr.text(),
    stdoutTruncated: o.stdout.truncated,
    stderrTruncated: o.stderr.truncated,
    timedOut: o.timedOut,
    durationMs: o.durationMs,
  };
  let status: string;
  if (o.timedOut)
    status = `${name} did not finish within ${timeoutMs / 1000} s and was stopped; it and every process it started were killed. Output so far is below. Use a narrower command, or ask for a longer timeout.`;
  else if (o.outputLimitHit)
    status = `${name} wrote more than ${opts.killAfterOutputBytes} bytes of output and was stopped; it and every process it started were killed. Narrow the command so it prints less.`;
  else if (o.exitCode !== null) status = `${name} exited with code ${o.exitCode} after ${o.durationMs} ms.`;
  else status = `${name} was ended by ${o.signal}.`;
  const text = [
    `$ ${[name, ...argv].map(quoteForDisplay).join(' ')}`,
    status,
    `--- stdout${o.stdout.truncated ? ` (${o.stdout.total} bytes, truncated)` : ''} ---`,
    structured.stdout === '' ? '(empty)' : structured.stdout,
    `--- stderr${o.stderr.truncated ? ` (${o.stderr.total} bytes, truncated)` : ''} ---`,
    structured.stderr === '' ? '(empty)' : structured.stderr,
  ].join('\n');
  const failed = o.exitCode !== 0 || o.timedOut || o.outputLimitHit;
  return { content: [{ type: 'text', text }], structuredContent: structured, ...(failed ? { isError: true } : {}) };
}

/** Shows the argv as a reader would type it; it was never passed to a shell. */
function quoteForDisplay(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function describeTool(policy: CommandPolicy, opts: ResolvedExecOptions, readOnly: boolean): string {
  const effects = readOnly
    ? 'Side effects: none; every allowed command only reads.'
    : `Side effects: commands can change files and other state; a call waits for the user's approval${policy.names.some((n) => policy.get(n)!.entry.readOnly) ? ' unless its command is marked read-only' : ''}.`;
  return [
    'Runs one allowed command with the given arguments (directly, never through a shell: no pipes, globbing or variable expansion) and returns its exit code, stdout and stderr.',
    `When to use it: when one of these commands does what you need. Commands run in the working root or in a directory inside it (cwd), with a minimal environment, for at most ${opts.timeoutMs / 1000} s unless noted; a non-zero exit is reported as an error with the output.`,
    `Allowed commands:\n${policy.summary()}`,
    effects,
  ].join('\n');
}

function inputSchema(policy: CommandPolicy, opts: ResolvedExecOptions): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      command: { type: 'string', enum: policy.names, description: 'Name of an allowed command (not a path).' },
      args: {
        type: 'array',
        items: { type: 'string', maxLength: opts.maxArgLength },
        maxItems: 256,
        default: [],
        description: 'Arguments, one per item, passed as they are (no shell quoting needed or interpreted).',
      },
      cwd: { type: 'string', maxLength: 1024, description: 'Working directory relative to the working root (default: the root).' },
    },
    required: ['command'],
    additionalProperties: false,
  };
}

const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    exitCode: { type: ['integer', 'null'], description: 'Exit code, or null when a signal ended the command.' },
    signal: { type: ['string', 'null'], description: 'The signal that ended the command, if any.' },
    stdout: { type: 'string' },
    stderr: { type: 'string' },
    stdoutTruncated: { type: 'boolean', description: 'True when part of stdout was dropped (marked in the text).' },
    stderrTruncated: { type: 'boolean' },
    timedOut: { type: 'boolean' },
    durationMs: { type: 'integer' },
  },
  required: ['exitCode', 'signal', 'stdout', 'stderr', 'stdoutTruncated', 'stderrTruncated', 'timedOut', 'durationMs'],
  additionalProperties: false,
};
