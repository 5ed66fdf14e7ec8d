import { parseWithStandard } from '../../schema/standard.js';
import type { Stage } from './call.js';
import { errorResult } from './results.js';

/**
 * Checks the arguments with the schema compiled at registration; a violation
 * is an `isError` result naming every offending field, and the handler never runs.
 */
export const validateArgsStage: Stage = async (call, next) => {
  const { tool } = call;
  const valid = tool.validateArgs(call.args);
  if (!valid.ok) return invalid(call, valid.problems);
  call.handlerArgs = call.args;
  if (tool.standardInput) {
    const parsed = await parseWithStandard(tool.standardInput, call.args, 'arguments');
    if (!parsed.ok) return invalid(call, parsed.problems);
    call.handlerArgs = parsed.value;
  }
  return next();
};

function invalid(call: Parameters<Stage>[0], problems: string[]) {
  call.status = 'invalid_arguments';
  return errorResult(`Invalid arguments for tool ${call.tool.name}:\n- ${problems.join('\n- ')}`);
}
