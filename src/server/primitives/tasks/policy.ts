/**
 * When a call becomes a task (SEP-2663: the server alone decides, per request).
 *
 * - 'never': always answered directly.
 * - 'always': a task at once, for every client that declared the extension on
 *   the request; other clients get the direct answer.
 * - 'required': as 'always', and a client without the extension gets -32021
 *   naming it (SEP-2663 "Capability Negotiation": a server unable to serve the
 *   request without a task MUST say so).
 * - { afterMs }: the call starts as an ordinary one and becomes a task only if
 *   it has not answered within afterMs. Input it asks for before that travels
 *   as an ordinary input-required result (MRTR, resolved before the task,
 *   SEP-2663 "Composition with Multi Round-Trip Requests"); input it asks for
 *   once it is a task travels through tasks/get and tasks/update.
 *   `required: true` refuses clients without the extension as 'required' does.
 *
 * The tool author sets `task` on the tool; the operator's per-tool setting
 * wins over it, and the operator's default applies to tools that say nothing.
 */
export type TaskMode = 'never' | 'always' | 'required' | { afterMs: number; required?: boolean };

export interface ResolvedTaskMode {
  /** false: never a task. */
  task: boolean;
  /** Milliseconds before the call becomes a task (0: at once). */
  afterMs: number;
  /** Clients that did not declare the extension get -32021. */
  required: boolean;
}

const NEVER: ResolvedTaskMode = Object.freeze({ task: false, afterMs: 0, required: false });

export function resolveTaskMode(mode: TaskMode | undefined): ResolvedTaskMode {
  if (mode === undefined || mode === 'never') return NEVER;
  if (mode === 'always') return { task: true, afterMs: 0, required: false };
  if (mode === 'required') return { task: true, afterMs: 0, required: true };
  return { task: true, afterMs: mode.afterMs, required: mode.required === true };
}

/** Throws a TypeError naming what is wrong (checked at registration and config load). */
export function checkTaskMode(mode: unknown, where: string): asserts mode is TaskMode | undefined {
  if (mode === undefined || mode === 'never' || mode === 'always' || mode === 'required') return;
  if (typeof mode === 'object' && mode !== null && !Array.isArray(mode)) {
    const { afterMs, required, ...rest } = mode as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length) throw new TypeError(`${where}: unknown task setting "${extra[0]}" (afterMs, required)`);
    if (typeof afterMs !== 'number' || !Number.isInteger(afterMs) || afterMs < 0 || afterMs > 86_400_000) {
      throw new TypeError(`${where}: task.afterMs must be an integer number of milliseconds from 0 to 86400000`);
    }
    if (required !== undefined && typeof required !== 'boolean') throw new TypeError(`${where}: task.required must be true or false`);
    return;
  }
  throw new TypeError(`${where}: task must be 'never', 'always', 'required' or { afterMs, required? }`);
}
