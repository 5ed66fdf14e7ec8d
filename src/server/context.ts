import { encodeNotification } from '../jsonrpc/encode.js';
import { LOG_LEVELS, type LogLevel } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import type { Logger } from '../runtime/logger.js';
import { callerOf, type Exchange } from './exchange.js';
import { authInfoOf, principalOf } from '../policy/auth/caller.js';
import type { CallInfo, Operation } from './pipeline/operation.js';
import { MissingClientCapability } from './inputs/missing-capability.js';
import type { CreateMessageResult, ElicitResult, InputMethod, ListRootsResult } from './inputs/responses.js';
import type { AskOptions, ElicitSchema, ToolContext } from './tool.js';
import { recordedText, recordedValue } from '../jsonrpc/recorded.js';

/**
 * The handler's view of a call. `finish()` seals it: nothing is sent for the
 * request once its result (or cancellation) is final (progress.mdx: progress
 * MUST stop after completion).
 */
export class CallContext implements ToolContext {
  private lastProgress = -Infinity;
  private finished = false;

  private readonly info: CallInfo;
  private readonly exchange: Exchange;

  constructor(
    private readonly call: Operation,
    private readonly logger: Logger,
  ) {
    this.info = call.info;
    this.exchange = call.exchange;
  }

  /** Created on first use: most handlers never look at it. */
  get signal(): AbortSignal {
    return this.call.signal;
  }

  get requestId() {
    return this.info.requestId;
  }
  get era() {
    return this.info.era;
  }
  get protocolVersion() {
    return this.info.protocolVersion;
  }
  get clientCapabilities() {
    return this.info.clientCapabilities;
  }
  get clientInfo() {
    return this.info.clientInfo;
  }
  get caller() {
    return callerOf(this.exchange);
  }
  /** @deprecated `caller.id` (undefined for the anonymous caller). */
  get principal() {
    return principalOf(callerOf(this.exchange));
  }
  /** @deprecated `caller` (undefined for the anonymous caller and for one a transport named by a bare id). */
  get auth() {
    return authInfoOf(callerOf(this.exchange));
  }

  progress(done: number, total?: number, message?: string): void {
    const token = this.info.progressToken;
    if (token === undefined || !this.live()) return;
    if (typeof done !== 'number' || !Number.isFinite(done) || done <= this.lastProgress) {
      this.logger.debug({ tool: recordedText(this.call.target), done: recordedValue(done), last: this.lastProgress }, 'progress value not increasing; dropped');
      return;
    }
    this.lastProgress = done;
    const params: Record<string, unknown> = { progressToken: token, progress: done };
    if (typeof total === 'number' && Number.isFinite(total)) params.total = total;
    if (typeof message === 'string') params.message = message;
    this.send(Method.progress, params);
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    this.logger.debug({ tool: recordedText(this.call.target), level: recordedValue(level), data }, 'tool log');
    const min = this.info.logLevel;
    if (min === undefined || !this.live() || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(min)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.send(Method.message, params);
  }

  private send(method: string, params: Record<string, unknown>): void {
    const { exchange } = this;
    if (exchange.notifyObject) exchange.notifyObject(method, params);
    else exchange.notify(encodeNotification(method, params));
  }

  requireClientCapability(capability: 'sampling' | 'elicitation' | 'roots'): void {
    if (this.info.clientCapabilities[capability] === undefined) throw new MissingClientCapability(capability);
  }

  elicit(message: string, requestedSchema: ElicitSchema, options?: AskOptions): Promise<ElicitResult> {
    return this.ask('elicitation/create', { message, requestedSchema }, options) as Promise<ElicitResult>;
  }

  sample(params: { messages: unknown[]; maxTokens: number; [key: string]: unknown }, options?: AskOptions): Promise<CreateMessageResult> {
    return this.ask('sampling/createMessage', params, options) as Promise<CreateMessageResult>;
  }

  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return this.ask('roots/list', {}, options) as Promise<ListRootsResult>;
  }

  private ask(method: InputMethod, params: Record<string, unknown>, options?: AskOptions): Promise<unknown> {
    if (!this.live()) return Promise.reject(this.signal.reason ?? new Error('the call is over'));
    const { inputs } = this.call;
    const key = options?.key ?? inputs.nextKey(method);
    return inputs.ask(method, params, key, this.signal);
  }

  finish(): void {
    this.finished = true;
  }

  private live(): boolean {
    return !this.finished && !this.call.aborted;
  }
}
