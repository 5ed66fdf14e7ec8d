import type { AuditSink } from '../../audit/record.js';
import type { AuditGuard } from '../pipeline/audit-guard.js';
import { ScopePolicy } from '../../policy/auth/scope-policy.js';
import type { Implementation } from '../../protocol/meta.js';
import type { Era } from '../../protocol/versions.js';
import type { CacheHints, ResultEncoder } from '../../protocol/result.js';
import type { PipelineOptions } from '../pipeline/index.js';
import type { SubscriptionHub } from '../subscriptions.js';
import { CompletionPrimitive } from './completion/index.js';
import { LifecyclePrimitive } from './lifecycle/index.js';
import type { Primitive } from './method-table.js';
import { PromptsPrimitive } from './prompts/index.js';
import type { PromptRegistry } from './prompts/registry.js';
import { ResourcesPrimitive } from './resources/index.js';
import type { ResourceRegistry } from './resources/registry.js';
import { SubscriptionsPrimitive, type ListenFilter } from './subscriptions/index.js';
import { ToolsPrimitive, type CallModes } from './tools/index.js';

export interface PrimitivesOptions extends PipelineOptions {
  serverInfo: Implementation;
  instructions?: string;
  pageSize: number;
  cacheHints: CacheHints;
  subscriptions: SubscriptionHub;
  results: ResultEncoder;
  resources: ResourceRegistry;
  prompts: PromptRegistry;
  /** Where prompts/get, resources/read, completion/complete and resources/subscribe are recorded (tool calls: the same auditStep, as their pipeline's outermost stage). */
  auditSink?: AuditSink;
  /** The audit trail's failure policy, shared with the tools/call audit step. */
  auditGuard?: AuditGuard;
  /** What the primitives advertise to modern clients (the dispatcher assembles it). */
  capabilities(era: Era): Record<string, unknown>;
  /** Tasks: a run mode of tools/call and a filter of subscriptions/listen (absent: no tasks). */
  tasks?: CallModes & { listen: ListenFilter };
}

/**
 * The server's primitives, in registration order: the one list a new
 * primitive joins. A later module may wrap a method an earlier one registered.
 */
export function standardPrimitives(options: PrimitivesOptions): Primitive[] {
  const scopePolicy = options.scopePolicy ?? new ScopePolicy();
  return [
    new LifecyclePrimitive(options),
    new ToolsPrimitive({ ...options, scopePolicy, modes: options.tasks }),
    new ResourcesPrimitive({ ...options, scopePolicy }),
    new PromptsPrimitive({ ...options, scopePolicy }),
    new CompletionPrimitive({ ...options, scopePolicy }),
    new SubscriptionsPrimitive(options.subscriptions, options.tasks?.listen),
  ];
}

export { MethodTable, ok, methodNotFound, type MethodHandler, type MethodResult, type Primitive, type RequestFacts } from './method-table.js';
