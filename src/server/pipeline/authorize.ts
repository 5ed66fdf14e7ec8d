import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { ScopePolicy } from '../../policy/auth/scope-policy.js';
import type { Stage } from './call.js';
import { unknownToolError } from './resolve.js';

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
 * Right after the tool is found (DESIGN.md "Authorization is two parts"):
 * a caller whose credentials carry scopes may call a tool only with all the
 * scopes it needs. A tool the caller may not know of answers exactly as an
 * unknown tool does; one it may know of answers 403 with all the scopes the
 * call needs. Nothing runs either way. Callers without scope information (stdio,
 * a custom hook that returned a plain principal) are not checked here.
 */
export function authorizeStage(policy: ScopePolicy): Stage {
  return (call, next) => {
    const auth = call.exchange.auth;
    if (auth?.scopes === undefined) return next();
    const decision = policy.decide(call.tool, auth);
    if (decision.allowed) return next();
    if (decision.hidden) throw unknownToolError(call.tool.name);
    call.status = 'refused';
    throw new InsufficientScopeError(decision.needed);
  };
}
