import type { CallInputs } from '../inputs/call-inputs.js';
import { APPROVAL_FIELD, approvalForm, misfitApproval } from '../inputs/approval-form.js';
import type { ElicitResult } from '../inputs/responses.js';
import type { CallOutcome, Stage, Operation } from './operation.js';
import { refuse, abortedOutcome } from './results.js';

/** Which calls need a human's yes: destructive tools (default), every tool, or none. */
export type ApprovalMode = 'destructive' | 'always' | 'never';

const KEY = 'toolwright_approval';
/** The approval form's one field (documented in docs/server.md, "Human approval"): a boolean, true to run the tool. */
const FIELD = APPROVAL_FIELD;
const PREVIEW_CHARS = 2_000;

/**
 * Human in the loop (tools.mdx "User Interaction Model"): a tool marked
 * destructive (or `approval: 'always'`) runs only after the user confirms
 * through an elicitation that shows the tool and its arguments. Annotations
 * are hints to clients; this is the server enforcing it.
 */
export function approvalStage(mode: ApprovalMode): Stage {
  return (call, next) => (needsApproval(call, mode) ? askThenRun(call, next) : next());
}

async function askThenRun(call: Operation, next: () => Promise<CallOutcome>): Promise<CallOutcome> {
  const { inputs } = call;
  if (call.info.clientCapabilities.elicitation === undefined) {
    return refuse(
      call,
      'approval_failed',
      `Tool ${call.tool.name} needs the user's approval, but this client cannot ask the user (it did not declare the elicitation capability). The tool was not run.`,
    );
  }
  const params = approvalRequest(call);
  let answer: ElicitResult | undefined;
  try {
    answer = call.info.era === 'modern' ? modernAnswer(inputs, params) : ((await inputs.ask('elicitation/create', params, KEY, call.signal)) as ElicitResult);
  } catch (err) {
    if (!call.signal.aborted)
      return refuse(
        call,
        'approval_failed',
        `Tool ${call.tool.name} needs the user's approval, but asking failed (${(err as Error).message}). The tool was not run.`,
      );
    return abortedOutcome(call);
  }
  if (answer === undefined) {
    call.status = 'input_required';
    return inputs.inputRequiredResult();
  }
  if (answer.action !== 'accept')
    return refuse(call, 'approval_declined', `The user did not approve running ${call.tool.name}; it was not run. Do not retry unless the user asks for it.`);
  const misfit = misfitApproval(answer.content);
  if (misfit)
    return refuse(
      call,
      'approval_failed',
      `The approval answer for ${call.tool.name} was not understood (${misfit}); the form has one field, "${FIELD}", a boolean: true runs the tool, false does not. The tool was not run.`,
    );
  if (answer.content![FIELD] === true) return next();
  return refuse(call, 'approval_declined', `The user did not approve running ${call.tool.name}; it was not run. Do not retry unless the user asks for it.`);
}

function needsApproval(call: Operation, mode: ApprovalMode): boolean {
  if (mode === 'never') return false;
  if (mode === 'always') return true;
  const { tool } = call.tool;
  if (tool.approval !== undefined) return tool.approval === 'always';
  if (typeof tool.needsApproval === 'function') {
    try {
      return tool.needsApproval(call.args) !== false;
    } catch {
      return true; // a hook that cannot decide does not waive the question
    }
  }
  return tool.annotations?.destructiveHint === true;
}

function modernAnswer(inputs: CallInputs, params: Record<string, unknown>): ElicitResult | undefined {
  const answer = inputs.answered(KEY, 'elicitation/create') as ElicitResult | undefined;
  if (answer === undefined) inputs.require(KEY, 'elicitation/create', params);
  return answer;
}

function approvalRequest(call: Operation): Record<string, unknown> {
  let args = JSON.stringify(call.args, null, 2);
  if (args.length > PREVIEW_CHARS) args = `${args.slice(0, PREVIEW_CHARS)}\n… (${args.length - PREVIEW_CHARS} more characters)`;
  const title = call.tool.tool.title ?? call.tool.tool.annotations?.title ?? call.tool.name;
  return {
    message: `Allow the tool "${title}" (${call.tool.name}) to run with these arguments?\n\n${args}`,
    requestedSchema: approvalForm('Approve this call?', `Run ${call.tool.name} now`),
  };
}
