import type { RateLimiter } from '../../policy/rate-limit.js';
import type { ScopePolicy } from '../../policy/auth/scope-policy.js';
import type { CacheHints, ResultEncoder } from '../../protocol/result.js';
import type { RequestStateCodec } from '../inputs/request-state.js';
import type { Logger } from '../../runtime/logger.js';
import type { SubscriptionHub } from '../subscriptions.js';
import type { RequestTracking } from './tracked-request.js';

/** What every request a primitive serves runs under (the server builds it once). */
export interface RequestServices extends RequestTracking {
  results: ResultEncoder;
  timeoutMs: number;
  logger: Logger;
  rateLimiter?: RateLimiter;
  /** Who may list and use which entries (callers whose credentials carry scopes). */
  scopePolicy: ScopePolicy;
}

/** ... and what a primitive with a paginated, live list (prompts, resources) needs besides. */
export interface ListingServices extends RequestServices {
  subscriptions: SubscriptionHub;
  pageSize: number;
  cacheHints: CacheHints;
  requestState: RequestStateCodec;
}
