import type { CommandEnvOptions } from '../../policy/command-env.js';
import type { AllowedCommand } from '../../policy/commands.js';
import { optionChecks } from '../options.js';

const check = optionChecks('exec');

export interface ExecToolsetOptions {
  /** Command name (what the model passes as `command`) → executable and argument rules. */
  commands: Record<string, AllowedCommand>;
  /** Directory commands run in; the `cwd` argument picks a directory inside it. Must exist. */
  root: string;
  /** The commands' environment: only listed variables are passed (default: PATH only). */
  env?: CommandEnvOptions;
  /** Time a command may run unless its entry says otherwise (default 30 s). */
  timeoutMs?: number;
  /** Bytes kept of each of stdout and stderr (default 256 KiB); the middle of longer output is dropped with a marker. */
  maxOutputBytes?: number;
  /** Output of both streams together past which the command is killed (default 16 MiB). */
  killAfterOutputBytes?: number;
  /** Longest single argument in characters (default 4096). */
  maxArgLength?: number;
}

export interface ResolvedExecOptions extends ExecToolsetOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  killAfterOutputBytes: number;
  maxArgLength: number;
}

export function resolveExecOptions(options: ExecToolsetOptions): ResolvedExecOptions {
  const resolved: ResolvedExecOptions = {
    ...options,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxOutputBytes: options.maxOutputBytes ?? 256 * 1024,
    killAfterOutputBytes: options.killAfterOutputBytes ?? 16 * 1024 * 1024,
    maxArgLength: options.maxArgLength ?? 4096,
  };
  if (typeof resolved.root !== 'string' || !resolved.root.startsWith('/')) throw check.invalid('root', 'must be an absolute directory path');
  for (const key of ['timeoutMs', 'maxOutputBytes', 'killAfterOutputBytes', 'maxArgLength'] as const) check.positiveInt(key, resolved[key]);
  for (const [name, entry] of Object.entries(options.commands ?? {})) {
    if (entry.timeoutMs !== undefined) check.positiveInt(`commands.${name}.timeoutMs`, entry.timeoutMs);
  }
  return resolved;
}
