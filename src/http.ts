/**
 * toolwright/http: the Streamable HTTP transport, loaded when imported.
 * `createHttpHandler` here is synchronous and returns the handler itself
 * (`{ handle, fetch, close }`); the one exported by 'toolwright' returns a
 * Promise of it, so that `import 'toolwright'` does not load the HTTP code
 * for servers that only speak stdio. Both build the same handler.
 */
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './transports/http-handler.js';
export { serveHttp, type HttpServeOptions, type HttpServerHandle, type HttpRoute } from './transports/http-server.js';
export type { FetchRequestInfo } from './transports/http-fetch.js';
export type { HttpCloseOptions } from './transports/http-drain.js';
export type { AuthenticateHook } from './transports/http-authorization.js';
export type { AuthenticateRequest, RequestHeaders } from './transports/http-request.js';
export { createAuthProxy, type AuthProxy, type AuthProxyRoute } from './auth-proxy/facade.js';
export type { AuthProxyOptions, ProviderName } from './auth-proxy/options.js';
export type { AuditHealth, FacadeAuditFailurePolicy } from './auth-proxy/audit-health.js';
export type { MetadataFetchOptions } from './auth-proxy/client-metadata.js';
export type { AuthProxyStore } from './auth-proxy/store.js';
export { MemoryAuthProxyStore } from './auth-proxy/store.js';
export { SqliteAuthProxyStore } from './auth-proxy/sqlite-store.js';
export { RedisAuthProxyStore } from './auth-proxy/redis-store.js';
