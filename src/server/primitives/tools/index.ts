import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import { Method } from '../../../protocol/methods.js';
import type { CacheHints, ResultEncoder } from '../../../protocol/result.js';
import type { Era } from '../../../protocol/versions.js';
import type { ScopePolicy } from '../../../policy/auth/scope-policy.js';
import { CallPipeline, type PipelineOptions } from '../../pipeline/index.js';
import { callInfoOf, type CallInfo } from '../../pipeline/operation.js';
import { ScopedToolListing } from '../../scoped-listing.js';
import type { SubscriptionHub } from '../../subscriptions.js';
import { callerOf, type Exchange } from '../../exchange.js';
import type { MaybeResult, MethodHandler, MethodResult, MethodTable, Primitive, RequestFacts } from '../method-table.js';
import type { AnyMiddleware } from '../../middleware.js';

/** One run of the call pipeline: one Operation, from its params, its request's facts and its exchange. */
export type CallRun = (params: Record<string, unknown>, info: CallInfo, exchange: Exchange) => Promise<MethodResult | undefined>;

/**
 * The other ways a `tools/call` may run (the tasks primitive: as a task, its
 * outcome stored in the task's record instead of answered). `run` is the
 * ordinary run, for the calls that are not tasks and for each pass of one that is.
 */
export interface CallModes {
  call(params: Record<string, unknown>, info: CallInfo, exchange: Exchange, run: CallRun): MaybeResult;
  /** A legacy tools/list page as the mode shows it (each tool's task support). */
  listed(page: MethodResult): MethodResult;
}

export interface ToolsPrimitiveOptions extends PipelineOptions {
  scopePolicy: ScopePolicy;
  pageSize: number;
  cacheHints: CacheHints;
  results: ResultEncoder;
  subscriptions: SubscriptionHub;
  /** How a call may run besides directly (tasks); absent: always directly. */
  modes?: CallModes;
}

/**
 * The Tools primitive: `tools/list` (pages cached per scope set) and
 * `tools/call` (the call pipeline), the same in both eras but for the
 * result's encoding and where the call's facts come from.
 */
export class ToolsPrimitive implements Primitive {
  readonly pipeline: CallPipeline;
  readonly listing: ScopedToolListing;
  private readonly modes?: CallModes;
  /** The ordinary run, made once: a call's pass (or a task's) allocates no closure for it. */
  private readonly run: CallRun;

  constructor(options: ToolsPrimitiveOptions) {
    const pipeline = (this.pipeline = new CallPipeline(options));
    this.modes = options.modes;
    this.run = (params, info, exchange) => pipeline.call(params, info, exchange) as Promise<MethodResult | undefined>;
    this.listing = new ScopedToolListing(options.registry, options.pageSize, options.cacheHints, options.results, options.scopePolicy);
    options.subscriptions.offer('tools');
    // A caller shown a scope-filtered list hears of the changes it can see, and only those.
    options.subscriptions.watchTools((auth) => (auth?.scopes ? this.listing.watch(auth) : undefined));
  }

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.tools = { listChanged: true };
  }

  register(methods: MethodTable): void {
    const { modes } = this;
    methods.both(Method.toolsList, (era) =>
      era === 'legacy' && modes
        ? (request, exchange) => modes.listed(this.listing.page(era, request.params?.cursor, callerOf(exchange)))
        : (request, exchange) => this.listing.page(era, request.params?.cursor, callerOf(exchange)),
    );
    methods.both(Method.toolsCall, (era) => this.callHandler(era), {
      // The dispatcher's chain of server.use middleware, typed loosely in the method table.
      useMiddleware: (chain) => this.pipeline.use(chain as readonly AnyMiddleware[]),
    });
  }

  /** The call's result object (or undefined: cancelled); the dispatcher encodes it, with a rate-limit refusal's Retry-After. */
  private callHandler(era: Era): MethodHandler {
    const { modes, run } = this;
    if (modes) return (request, exchange, facts) => modes.call(request.params ?? {}, callInfoOf(request, era, facts), exchange, run);
    return (request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts) =>
      this.pipeline.call(request.params ?? {}, callInfoOf(request, era, facts), exchange) as Promise<Record<string, unknown> | undefined>;
  }
}
