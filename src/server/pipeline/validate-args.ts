import { parseWithStandard, type StandardSchemaV1 } from '../../schema/standard.js';
import type { CallOutcome, Stage } from './operation.js';
import { errorResult } from './results.js';

/**
 * Checks the arguments against the tool's input schema (checked at
 * registration, compiled by Ajv on the first call); a violation is an
 * `isError` result naming every offending field, and the handler never runs.
 */
export const validateArgsStage: Stage = (call, next) => {
  const { tool } = call;
  const valid = tool.validateArgs(call.args);
  if (!valid.ok) return Promise.resolve(invalid(call, valid.problems));
  call.handlerArgs = call.args;
  return tool.standardInput ? parseThenRun(tool.standardInput, call, next) : next();
};

/** A Standard Schema (zod, valibot, …) also parses: its output is what the handler gets. */
async function parseThenRun(schema: StandardSchemaV1, call: Parameters<Stage>[0], next: () => Promise<CallOutcome>): Promise<CallOutcome> {
  const parsed = await parseWithStandard(schema, call.args, 'arguments');
  if (!parsed.ok) return invalid(call, parsed.problems);
  call.handlerArgs = parsed.value;
  return next();
}

function invalid(call: Parameters<Stage>[0], problems: string[]) {
  call.status = 'invalid_arguments';
  return errorResult(`Invalid arguments for tool ${call.tool.name}:\n- ${problems.join('\n- ')}`);
}
