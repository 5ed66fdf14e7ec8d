import type { ClientCapabilities } from '../../protocol/meta.js';
import type { Era } from '../../protocol/versions.js';
import { MissingClientCapability } from './missing-capability.js';
import type { Exchange } from '../exchange.js';
import type { RequestStateCodec, StateBinding } from './request-state.js';
import { CAPABILITY_FOR, isValidResponse, type InputMethod } from './responses.js';

/** The interim result of a modern call that needs the client's input first (mrtr.mdx). */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests: Record<string, { method: InputMethod; params: Record<string, unknown> }>;
  requestState: string;
}

/** The abort reason of a handler stopped to ask for input. */
export const INPUT_REQUIRED = Symbol('input required');

/**
 * Everything a call may ask of the client: elicitation, sampling, roots.
 *
 * Modern era (MRTR): answers come from the retry's `inputResponses` and the
 * signed `requestState`; a question without an answer is collected, the
 * handler is stopped, and the call answers with an InputRequiredResult
 * holding every question asked in that turn. Handlers are re-run on each
 * retry, so they should ask before they act.
 *
 * Legacy era: a real request goes to the client on the call's stream.
 */
export class CallInputs {
  private readonly pending: InputRequiredResult['inputRequests'] = {};
  private readonly used: Record<string, unknown> = {};
  private readonly counters = new Map<string, number>();
  private flushScheduled = false;
  /** Set by the handler runner: stops the handler when questions are pending. */
  onPending?: () => void;

  constructor(
    private readonly era: Era,
    private readonly capabilities: ClientCapabilities,
    private readonly exchange: Exchange,
    private readonly answers: Record<string, unknown>,
    private readonly codec: RequestStateCodec,
    private readonly binding: StateBinding,
  ) {}

  /** A stable key for the n-th question of a kind in this run (handlers re-run in the same order). */
  nextKey(method: InputMethod): string {
    const kind = CAPABILITY_FOR[method];
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    return `${kind}_${n}`;
  }

  /** The client's valid answer to `key`, if it has given one (modern era). */
  answered(key: string, method: InputMethod): unknown {
    const answer = this.answers[key];
    if (!isValidResponse(method, answer)) return undefined;
    this.used[key] = answer;
    return answer;
  }

  /** Records a question for the InputRequiredResult (modern era). */
  require(key: string, method: InputMethod, params: Record<string, unknown>): void {
    this.assertCapability(method);
    this.pending[key] = { method, params };
  }

  get hasPending(): boolean {
    return Object.keys(this.pending).length > 0;
  }

  /** The interim result: every pending question plus state carrying the answers so far. */
  inputRequiredResult(): InputRequiredResult {
    return { resultType: 'input_required', inputRequests: this.pending, requestState: this.codec.seal(this.binding, this.used) };
  }

  /** Asks the client and resolves with its answer (used by ctx.elicit, ctx.sample, ctx.listRoots). */
  ask(method: InputMethod, params: Record<string, unknown>, key: string, signal: AbortSignal): Promise<unknown> {
    if (this.era === 'legacy') {
      this.assertCapability(method);
      return this.exchange.peer.request(this.exchange.notify, method, params, signal).then((answer) => {
        if (!isValidResponse(method, answer)) throw new Error(`the client sent a malformed answer to ${method}`);
        return answer;
      });
    }
    const answer = this.answered(key, method);
    if (answer !== undefined) return Promise.resolve(answer);
    this.require(key, method, params);
    this.scheduleFlush();
    // Settles never: the handler is stopped once this turn's questions are collected.
    return new Promise(() => {});
  }

  private assertCapability(method: InputMethod): void {
    const capability = CAPABILITY_FOR[method];
    if (this.capabilities[capability] === undefined) throw new MissingClientCapability(capability);
  }

  /** Lets concurrent questions (Promise.all) join the same InputRequiredResult before stopping the handler. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.onPending?.());
  }
}
