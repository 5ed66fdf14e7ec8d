// doctor starts { command } servers itself: the client's Node part lets ToolClient start them.
import '../client/node.js';
import { FileTokenStore } from '../client/auth/file-token-store.js';
import { diagnoseConnection } from '../client/doctor/index.js';
import type { DoctorReport, DoctorStep } from '../client/doctor/index.js';
import { readServers } from '../client/connect/servers-file.js';
import type { EraPreference } from '../client/types.js';
import { parseTimeout, resolveTarget, type ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { storedAuthorization } from '../client/connect/login.js';
import { jsonForTerminal, sanitize } from '../io/sanitize.js';

const MARK: Record<DoctorStep['status'], string> = { ok: '✓', failed: '✗', skipped: '–', warning: '!' };

/** `toolwright doctor <url> | @name | -- <command…>`: what fails when connecting, step by step, and what to try. */
export async function doctorCommand(url: string | undefined, command: string[], options: DoctorCommandOptions, io: CliIo): Promise<number> {
  if (options.upstreams !== undefined) {
    if (url !== undefined || command.length) throw new UsageError('--upstreams checks every server of its file: give no URL or command with it');
    return doctorUpstreams(options.upstreams, options, io);
  }
  const target = resolveTarget(url, command, options);
  if ('command' in target) delete (target as { onStderr?: unknown }).onStderr;
  const report = await diagnose(target, options, io);
  if (options.json) io.stdout(`${jsonForTerminal(report)}\n`);
  else {
    printSteps(report, '', io);
    io.stdout(report.ok ? 'the connection works\n' : 'the connection does not work\n');
  }
  return report.ok ? ExitCode.ok : ExitCode.failure;
}

export interface DoctorCommandOptions extends ClientCommandOptions {
  /** A servers file (.mcp.json) whose every server is diagnosed: the upstreams `serve --upstreams` would mount. */
  upstreams?: string;
}

/**
 * `toolwright doctor --upstreams .mcp.json`: the health of every upstream a gateway would mount,
 * each diagnosed as `doctor @name` would (all at once), then one line per upstream.
 */
async function doctorUpstreams(file: string, options: DoctorCommandOptions, io: CliIo): Promise<number> {
  const names = [...readServers(file).keys()];
  const reports = await Promise.all(names.map((name) => diagnose(resolveTarget(`@${name}`, [], { ...options, serversFile: file }), options, io)));
  if (options.json) {
    io.stdout(`${jsonForTerminal({ ok: reports.every((r) => r.ok), upstreams: names.map((name, i) => ({ name, ...reports[i] })) })}\n`);
  } else {
    names.forEach((name, i) => {
      io.stdout(`upstream ${sanitize(name)}: ${reports[i].ok ? 'works' : 'does not work'}\n`);
      if (!reports[i].ok) printSteps(reports[i], '  ', io);
    });
    io.stdout(`${reports.filter((r) => r.ok).length} of ${names.length} upstream(s) work\n`);
  }
  return reports.every((r) => r.ok) ? ExitCode.ok : ExitCode.failure;
}

function diagnose(target: ReturnType<typeof resolveTarget>, options: ClientCommandOptions, io: CliIo) {
  if ('command' in target) delete (target as { onStderr?: unknown }).onStderr;
  const stepTimeoutMs = parseTimeout(options.timeout) ?? parseTimeout(options.connectTimeout) ?? 5_000;
  return diagnoseConnection(target, {
    era: options.era as EraPreference,
    stepTimeoutMs,
    totalTimeoutMs: stepTimeoutMs * 8,
    tokenStore: new FileTokenStore(),
    authorization: storedAuthorization(target, io),
  });
}

function printSteps(report: DoctorReport, margin: string, io: CliIo): void {
  for (const step of report.steps) {
    io.stdout(`${margin}${MARK[step.status]} ${step.id}: ${sanitize(step.summary)} (${step.ms} ms)\n`);
    if (step.detail) io.stdout(`${indent(sanitize(step.detail), `${margin}    `)}\n`);
    if (step.hint) io.stdout(`${margin}    try: ${sanitize(step.hint)}\n`);
  }
}

function indent(text: string, margin: string): string {
  return text
    .split('\n')
    .map((line) => `${margin}${line}`)
    .join('\n');
}
