import { Method } from '../../../protocol/methods.js';
import type { CacheHints, ResultEncoder } from '../../../protocol/result.js';
import type { ScopePolicy } from '../../../policy/auth/scope-policy.js';
import type { PipelineOptions } from '../../pipeline/index.js';
import { toolCallPhases } from './call.js';
import type { CallInfo } from '../../pipeline/operation.js';
import { ScopedToolListing } from '../../scoped-listing.js';
import type { SubscriptionHub } from '../../subscriptions.js';
import type { Exchange } from '../../exchange.js';
import type { MaybeResult, MethodResult, MethodRun, MethodTable, Primitive } from '../method-table.js';

/**
 * The other ways a `tools/call` may run (the tasks primitive: as a task, its
 * outcome stored in the task's record instead of answered). `run` is the
 * ordinary run, for the calls that are not tasks and for each pass of one that is.
 */
export interface CallModes {
  call(params: Record<string, unknown>, info: CallInfo, exchange: Exchange, run: MethodRun): MaybeResult;
  /** A legacy tools/list page as the mode shows it (each tool's task support). */
  listed(page: MethodResult): MethodResult;
}

interface ToolsPrimitiveOptions extends PipelineOptions {
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
  readonly listing: ScopedToolListing;

  constructor(private readonly options: ToolsPrimitiveOptions) {
    this.listing = new ScopedToolListing(options.registry, options.pageSize, options.cacheHints, options.results, options.scopePolicy);
    options.subscriptions.offer('tools');
    // A caller shown a scope-filtered list hears of the changes it can see, and only those.
    options.subscriptions.watchTools((auth) => (auth?.scopes ? this.listing.watch(auth) : undefined));
  }

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.tools = { listChanged: true };
  }

  register(methods: MethodTable): void {
    const { modes } = this.options;
    methods.runs(Method.toolsList, ['modern'], this.listing.run);
    methods.runs(Method.toolsList, ['legacy'], modes ? (op, params) => modes.listed(this.listing.run(op, params)) : this.listing.run);
    // The call's result object (or undefined: cancelled); the dispatcher encodes it, with a rate-limit refusal's Retry-After.
    methods.declare(
      Method.toolsCall,
      ['modern', 'legacy'],
      toolCallPhases(this.options, modes && ((params, info, exchange, run) => modes.call(params, info, exchange, run))),
    );
  }
}
