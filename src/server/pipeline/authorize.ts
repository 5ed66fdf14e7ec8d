import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { AuthInfo } from '../../policy/auth/principal.js';
import type { ScopePolicy, ToolRequirement } from '../../policy/auth/scope-policy.js';
import type { Stage } from './operation.js';
import { unknownToolError } from './resolve.js';
import { callerOf } from '../exchange.js';

/**
 * A token without the scopes a call needs (RFC 6750 §3.1 `insufficient_scope`):
 * HTTP 403, and the transport's challenge names every scope in `scopes`.
 */
export class InsufficientScopeError extends RpcError {
  constructor(readonly scopes: readonly string[]) {
    super(ErrorCode.InvalidRequest, `Forbidden: insufficient scope; this call needs the scopes: ${scopes.join(' ')}`, { requiredScopes: scopes }, 403);
    this.name = 'InsufficientScopeError';
  }
}

/**
 * Right after the tool is found (docs/architecture.md#authorization-is-two-parts):
 * a caller whose credentials carry scopes may call a tool only with all the
 * scopes it needs. A tool the caller may not know of answers exactly as an
 * unknown tool does; one it may know of answers 403 with all the scopes the
 * call needs. Nothing runs either way. Callers without scope information (stdio,
 * a custom hook that returned a plain principal) are not checked here.
 */
export function authorizeStage(policy: ScopePolicy): Stage {
  return (call, next) => {
    const auth = callerOf(call.exchange);
    if (auth?.scopes === undefined) return next();
    const decision = policy.decide(call.tool, auth);
    if (decision.allowed) return next();
    if (decision.hidden) throw unknownToolError(call.tool.name);
    call.status = 'refused';
    call.reason = 'scope';
    throw new InsufficientScopeError(decision.needed);
  };
}

/**
 * The same check for what is not a tool (`resources/read`, `prompts/get`,
 * `completion/complete`, a resource subscription): true when `auth` may use
 * what `req` guards (always, for a caller without scope information); a
 * caller that may not know of it gets `hidden()`, the very error a missing
 * one gets; one that may know of it but lacks scopes, 403 with all it needs.
 */
export function authorizeEntry(policy: ScopePolicy, req: ToolRequirement, auth: AuthInfo | undefined, hidden: () => Error): void {
  if (auth?.scopes === undefined) return;
  const decision = policy.check(req, auth);
  if (decision.allowed) return;
  if (decision.hidden) throw hidden();
  throw new InsufficientScopeError(decision.needed);
}

/** Whether `auth` may use what `req` guards, without saying why not (filters: subscriptions, template matching). */
export function mayUse(policy: ScopePolicy, req: ToolRequirement, auth: AuthInfo | undefined): boolean {
  return auth?.scopes === undefined || policy.check(req, auth).allowed;
}

/** Whether `auth` may know `req`'s item exists (it may still lack the scopes to use it). */
export function mayKnow(policy: ScopePolicy, req: ToolRequirement, auth: AuthInfo | undefined): boolean {
  if (auth?.scopes === undefined) return true;
  const decision = policy.check(req, auth);
  return decision.allowed || !decision.hidden;
}
