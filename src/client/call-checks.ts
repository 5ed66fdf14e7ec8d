import { OutputValidationError } from './errors.js';
import { INPUT_CAPABILITIES } from './inputs/types.js';
import type { CatalogEntry } from './tool-catalog.js';
import type { CallToolResult, Progress, ToolClientOptions } from './types.js';

/** Holds structured output to the outputSchema the tool declared. */
export function checkOutput(name: string, entry: CatalogEntry | undefined, call: CallToolResult): CallToolResult {
  if (entry?.validateOutput && !call.isError) {
    if (call.structuredContent === undefined) throw new OutputValidationError(name, ['structuredContent is missing, but the tool declares an outputSchema']);
    const check = entry.validateOutput(call.structuredContent);
    if (!check.ok) throw new OutputValidationError(name, check.problems);
  }
  return call;
}

export function checkInputOptions(options: ToolClientOptions): void {
  if (options.onInputRequest !== undefined && typeof options.onInputRequest !== 'function') throw new TypeError('onInputRequest must be a function');
  const rounds = options.maxInputRounds;
  if (rounds !== undefined && (!Number.isInteger(rounds) || rounds < 1)) throw new TypeError('maxInputRounds must be a positive integer');
  const chosen = options.inputCapabilities;
  if (chosen !== undefined && (!Array.isArray(chosen) || !chosen.every((c) => INPUT_CAPABILITIES.includes(c)))) {
    throw new TypeError(`inputCapabilities must list some of ${INPUT_CAPABILITIES.join(', ')}`);
  }
}

/** progress.mdx: progress MUST increase; a server that goes backwards is not passed on. */
export function increasingOnly(callback: (p: Progress) => void): (p: Progress) => void {
  let last = -Infinity;
  return (p) => {
    if (p.progress <= last) return;
    last = p.progress;
    callback(p);
  };
}
