import { FileTokenStore } from '../client/auth/file-token-store.js';
import { diagnoseConnection } from '../client/doctor/index.js';
import type { DoctorStep } from '../client/doctor/index.js';
import type { EraPreference } from '../client/types.js';
import { parseTimeout, resolveTarget, type ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, type CliIo } from './errors.js';
import { storedAuthorization } from '../client/connect/login.js';
import { jsonForTerminal, sanitize } from '../io/sanitize.js';

const MARK: Record<DoctorStep['status'], string> = { ok: '✓', failed: '✗', skipped: '–', warning: '!' };

/** `toolwright doctor <url> | @name | -- <command…>`: what fails when connecting, step by step, and what to try. */
export async function doctorCommand(url: string | undefined, command: string[], options: ClientCommandOptions, io: CliIo): Promise<number> {
  const target = resolveTarget(url, command, options);
  if ('command' in target) delete (target as { onStderr?: unknown }).onStderr;
  const stepTimeoutMs = parseTimeout(options.timeout) ?? parseTimeout(options.connectTimeout) ?? 5_000;
  const report = await diagnoseConnection(target, {
    era: options.era as EraPreference,
    stepTimeoutMs,
    totalTimeoutMs: stepTimeoutMs * 8,
    tokenStore: new FileTokenStore(),
    authorization: storedAuthorization(target, io),
  });
  if (options.json) io.stdout(`${jsonForTerminal(report)}\n`);
  else {
    for (const step of report.steps) {
      io.stdout(`${MARK[step.status]} ${step.id}: ${sanitize(step.summary)} (${step.ms} ms)\n`);
      if (step.detail) io.stdout(`${indent(sanitize(step.detail))}\n`);
      if (step.hint) io.stdout(`    try: ${sanitize(step.hint)}\n`);
    }
    io.stdout(report.ok ? 'the connection works\n' : 'the connection does not work\n');
  }
  return report.ok ? ExitCode.ok : ExitCode.failure;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
