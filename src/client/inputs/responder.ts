import type { ClientCapabilities } from '../../protocol/meta.js';
import { InputHandlerError, UnsupportedInputRequestError } from '../errors.js';
import { undeclaredReason } from './capabilities.js';
import { untilAborted } from '../deadline.js';
import { checkInputResult, type InputRequired } from './check.js';
import { withFormDefaults } from './defaults.js';
import type { InputRequestHandler, InputRequestMethod } from './types.js';

/**
 * Puts the server's questions to the `onInputRequest` handler, in either era,
 * and holds its answers to the shapes the protocol allows: a bad answer is
 * the handler's bug and is never sent.
 */
export class InputResponder {
  constructor(
    private readonly handler: InputRequestHandler,
    /** What the client declared; questions outside it are refused. */
    readonly capabilities: ClientCapabilities,
  ) {}

  /** Why the client cannot take this question, if it cannot (it never declared it). */
  refusal(method: InputRequestMethod, params: Record<string, unknown>): string | undefined {
    return undeclaredReason(method, params, this.capabilities);
  }

  /** Asks the handler one question; resolves with a checked answer, or rejects with InputHandlerError (or `signal.reason`). */
  async ask(
    method: InputRequestMethod,
    params: Record<string, unknown>,
    toolName: string | undefined,
    signal: AbortSignal,
    key?: string,
  ): Promise<Record<string, unknown>> {
    let value: unknown;
    try {
      value = await this.handler({ method, params, ...(toolName !== undefined ? { toolName } : {}), ...(key !== undefined ? { key } : {}), signal });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw new InputHandlerError(method, `it threw: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const checked = checkInputResult(method, value);
    if (!checked.ok) throw new InputHandlerError(method, `it returned an invalid result: ${checked.problem}`);
    return method === 'elicitation/create' ? withFormDefaults(params, checked.value) : checked.value;
  }

  /**
   * Answers one InputRequiredResult (modern era): every question at once, so
   * a user sees them together, and the `inputResponses` for the retry. The
   * first failure, or `signal`, ends the round without waiting for the rest;
   * the other handlers see their signal abort.
   */
  async answerRound(input: InputRequired, toolName: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    // Refuse before asking anyone anything: a question the client never declared is a server bug.
    for (const { method, params } of input.requests) {
      const why = this.refusal(method, params);
      if (why) throw new UnsupportedInputRequestError(method, why);
    }
    if (signal.aborted) throw signal.reason;
    const round = new AbortController();
    const scope = AbortSignal.any([signal, round.signal]);
    const answers = input.requests.map(async ({ key, method, params }) => [key, await this.ask(method, params, toolName, scope, key)] as const);
    try {
      const pairs = await untilAborted(Promise.all(answers), signal);
      // An own data property per key, whatever the key ("__proto__" included).
      const responses: Record<string, unknown> = {};
      for (const [key, value] of pairs) Object.defineProperty(responses, key, { value, enumerable: true, writable: true, configurable: true });
      return responses;
    } catch (err) {
      round.abort(err);
      for (const answer of answers) answer.catch(() => {}); // the round is over; late failures are moot
      throw err;
    }
  }
}
