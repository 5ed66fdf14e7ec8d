import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import { Method } from '../../../protocol/methods.js';
import type { CacheHints, ResultEncoder } from '../../../protocol/result.js';
import type { Era } from '../../../protocol/versions.js';
import type { ScopePolicy } from '../../../policy/auth/scope-policy.js';
import { CallPipeline, type PipelineOptions } from '../../pipeline/index.js';
import { callInfoOf } from '../../pipeline/operation.js';
import { ScopedToolListing } from '../../scoped-listing.js';
import type { SubscriptionHub } from '../../subscriptions.js';
import { callerOf, type Exchange } from '../../exchange.js';
import type { MethodHandler, MethodTable, Primitive, RequestFacts } from '../method-table.js';
import type { AnyMiddleware } from '../../middleware.js';

export interface ToolsPrimitiveOptions extends PipelineOptions {
  scopePolicy: ScopePolicy;
  pageSize: number;
  cacheHints: CacheHints;
  results: ResultEncoder;
  subscriptions: SubscriptionHub;
}

/**
 * The Tools primitive: `tools/list` (pages cached per scope set) and
 * `tools/call` (the call pipeline), the same in both eras but for the
 * result's encoding and where the call's facts come from.
 */
export class ToolsPrimitive implements Primitive {
  readonly pipeline: CallPipeline;
  readonly listing: ScopedToolListing;

  constructor(options: ToolsPrimitiveOptions) {
    this.pipeline = new CallPipeline(options);
    this.listing = new ScopedToolListing(options.registry, options.pageSize, options.cacheHints, options.results, options.scopePolicy);
    options.subscriptions.offer('tools');
    // A caller shown a scope-filtered list hears of the changes it can see, and only those.
    options.subscriptions.watchTools((auth) => (auth?.scopes ? this.listing.watch(auth) : undefined));
  }

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.tools = { listChanged: true };
  }

  register(methods: MethodTable): void {
    methods.both(Method.toolsList, (era) => (request, exchange) => this.listing.page(era, request.params?.cursor, callerOf(exchange)));
    methods.both(Method.toolsCall, (era) => this.callHandler(era), {
      // The dispatcher's chain of server.use middleware, typed loosely in the method table.
      useMiddleware: (chain) => this.pipeline.use(chain as readonly AnyMiddleware[]),
    });
  }

  /** The call's result object (or undefined: cancelled); the dispatcher encodes it, with a rate-limit refusal's Retry-After. */
  private callHandler(era: Era): MethodHandler {
    return (request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts) =>
      this.pipeline.call(request.params ?? {}, callInfoOf(request, era, facts), exchange) as Promise<Record<string, unknown> | undefined>;
  }
}
