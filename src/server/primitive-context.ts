import type { AuditSink } from '../audit/record.js';
import type { Implementation } from '../protocol/meta.js';
import type { CacheHints, ResultEncoder } from '../protocol/result.js';
import type { AuditGuard } from './pipeline/audit-guard.js';
import type { PipelineOptions } from './pipeline/index.js';
import type { Primitive } from './primitives/method-table.js';
import type { PrimitivesOptions } from './primitives/index.js';
import type { PromptRegistry } from './primitives/prompts/registry.js';
import type { ResourceRegistry } from './primitives/resources/registry.js';
import type { SubscriptionHub } from './subscriptions.js';
import type { TracingOptions } from '../tracing/options.js';

/** @internal */
export interface DispatcherOptions extends PipelineOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** Items per list page (`tools/list`, …). */
  pageSize: number;
  /** Cache hints on modern list and `server/discover` results. */
  cacheHints: CacheHints;
  subscriptions: SubscriptionHub;
  resources: ResourceRegistry;
  prompts: PromptRegistry;
  /** Where the requests that are not tool calls are recorded (the pipeline's `outer` stages record tool calls). */
  auditSink?: AuditSink;
  /** The audit trail's failure policy, shared with the tools/call audit step. */
  auditGuard?: AuditGuard;
  /** The server instance every audit record names. */
  auditInstance?: string;
  /** The tracing middleware's options around every route (false: none). */
  tracing?: TracingOptions | false;
  /** Tasks: a run mode of tools/call and a filter of subscriptions/listen (also among `primitives`, for their own methods). */
  tasks?: PrimitivesOptions['tasks'];
  /** Primitives beyond the standard ones, registered after them (so they may wrap their methods). */
  primitives?: (context: PrimitiveContext) => Primitive[];
}

/** What the server hands the primitives of `ToolServerOptions.primitives` as it builds them. */
export interface PrimitiveContext {
  /** Encodes results for each era (`resultType`, `_meta` serverInfo on modern results). */
  results: ResultEncoder;
  /** @internal the dispatcher's own options */
  options: DispatcherOptions;
}
