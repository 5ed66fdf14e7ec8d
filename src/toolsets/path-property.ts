import type { PathSandbox } from '../policy/paths.js';

/**
 * The JSON Schema of a `path` argument, described once for every toolset
 * that reads through a PathSandbox (fs, csv), so their limits and hints agree.
 */
export function pathProperty(sandbox: PathSandbox, what: string): Record<string, unknown> {
  return { type: 'string', minLength: 1, maxLength: 4096, description: `${what}, ${sandbox.pathHint()}.` };
}
