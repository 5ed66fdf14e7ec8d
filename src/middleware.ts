/**
 * toolwright/middleware — middleware for `server.use` (docs/middleware.md),
 * built on the public API only: structured request logging, response caching
 * for read-only tools and lists, and Server-Timing-like timing.
 */
export {
  requestLogging,
  responseCache,
  timing,
  SERVER_TIMING,
  type RequestLoggingOptions,
  type RequestLogger,
  type ResponseCacheOptions,
  type TimingOptions,
} from './middleware/index.js';
export type { Middleware, MiddlewareContext, Next, ToolCallMiddlewareContext } from './server/middleware.js';
