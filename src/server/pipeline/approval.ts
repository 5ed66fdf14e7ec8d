import type { CompiledTool } from '../compile-tool.js';
import type { CallInputs } from '../inputs/call-inputs.js';
import type { ElicitResult } from '../inputs/responses.js';
import type { CallOutcome, Stage, ToolCall } from './call.js';
import { refuse, abortedOutcome } from './results.js';

/** Which calls need a human's yes: destructive tools (default), every tool, or none. */
export type ApprovalMode = 'destructive' | 'always' | 'never';

const KEY = 'toolwright_approval';
const PREVIEW_CHARS = 2_000;

/**
 * Human in the loop (tools.mdx "User Interaction Model"): a tool marked
 * destructive (or `approval: 'always'`) runs only after the user confirms
 * through an elicitation that shows the tool and its arguments. Annotations
 * are hints to clients; this is the server enforcing it.
 */
export function approvalStage(mode: ApprovalMode): Stage {
  return (call, next) => (needsApproval(call.tool, mode) ? askThenRun(call, next) : next());
}

async function askThenRun(call: ToolCall, next: () => Promise<CallOutcome>): Promise<CallOutcome> {
  const { inputs } = call;
  if (call.info.clientCapabilities.elicitation === undefined) {
    return refuse(call, `Tool ${call.tool.name} needs the user's approval, but this client cannot ask the user (it did not declare the elicitation capability). The tool was not run.`);
  }
  const params = approvalRequest(call);
  let answer: ElicitResult | undefined;
  try {
    answer = call.info.era === 'modern' ? modernAnswer(inputs, params) : ((await inputs.ask('elicitation/create', params, KEY, call.signal)) as ElicitResult);
  } catch (err) {
    if (!call.signal.aborted) return refuse(call, `Tool ${call.tool.name} needs the user's approval, but asking failed (${(err as Error).message}). The tool was not run.`);
    return abortedOutcome(call);
  }
  if (answer === undefined) {
    call.status = 'input_required';
    return inputs.inputRequiredResult();
  }
  if (answer.action === 'accept' && answer.content?.approve === true) return next();
  return refuse(call, `The user did not approve running ${call.tool.name}; it was not run. Do not retry unless the user asks for it.`);
}

function needsApproval(tool: CompiledTool, mode: ApprovalMode): boolean {
  if (mode === 'never') return false;
  if (mode === 'always') return true;
  return tool.tool.approval === 'always' || (tool.tool.approval === undefined && tool.tool.annotations?.destructiveHint === true);
}

function modernAnswer(inputs: CallInputs, params: Record<string, unknown>): ElicitResult | undefined {
  const answer = inputs.answered(KEY, 'elicitation/create') as ElicitResult | undefined;
  if (answer === undefined) inputs.require(KEY, 'elicitation/create', params);
  return answer;
}

function approvalRequest(call: ToolCall): Record<string, unknown> {
  let args = JSON.stringify(call.args, null, 2);
  if (args.length > PREVIEW_CHARS) args = `${args.slice(0, PREVIEW_CHARS)}\n… (${args.length - PREVIEW_CHARS} more characters)`;
  const title = call.tool.tool.title ?? call.tool.tool.annotations?.title ?? call.tool.name;
  return {
    message: `Allow the tool "${title}" (${call.tool.name}) to run with these arguments?\n\n${args}`,
    requestedSchema: {
      type: 'object',
      properties: { approve: { type: 'boolean', title: 'Approve this call?', description: `Run ${call.tool.name} now`, default: false } },
      required: ['approve'],
    },
  };
}
