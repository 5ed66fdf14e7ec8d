/**
 * toolwright — the server API. Other entry points, so that a server loads only
 * what it uses: `toolwright/client`, `toolwright/testing`, `toolwright/toolsets`
 * (the built-in tools) and `toolwright/config` (toolwright.config.* files).
 */
export { ToolServer, type ToolServerOptions } from './server/server.js';
export { ToolRegistry } from './server/registry.js';
export { defineTool, ToolError, type Tool, type ToolContext, type ToolResult, type ToolAnnotations, type Icon, type JsonSchema } from './server/tool.js';
export { ToolDefinitionError } from './server/compile-tool.js';
export { defineResource, defineResourceTemplate, ResourceRegistry, ResourceDefinitionError, UriTemplate, type Resource, type ResourceTemplate, type ResourceContext, type ResourceContent, type ReadReturn, type Completer, type TemplateVariables } from './server/primitives/resources/index.js';
export { definePrompt, PromptRegistry, PromptDefinitionError, type Prompt, type PromptArgument, type PromptMessage, type PromptReturn, type PromptContext } from './server/primitives/prompts/index.js';
export type { RequestContext } from './server/primitives/request-context.js';
export { MethodTable, type Primitive, type MethodHandler, type MethodResult, type RequestFacts } from './server/primitives/method-table.js';
export { withJson } from './server/serialized.js';
export type { Middleware, MiddlewareContext, MiddlewareFor, MethodParams, MiddlewareEntry, MiddlewareModule, Next, ToolCallMiddlewareContext, ToolCallMiddlewareResult } from './server/middleware.js';
export type { PrimitiveContext } from './server/primitive-context.js';
export type { ServerConnection, ConnectOptions, ReceiveOptions, Reply } from './server/connection.js';
export type { JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId } from './jsonrpc/types.js';
export type { AuthInfo } from './policy/auth/principal.js';
export { serveStdio, type StdioServeOptions, type StdioServerHandle } from './transports/stdio-server.js';
export { serveHttp, createHttpHandler, type HttpServeOptions, type HttpServerHandle, type HttpRoute, type HttpHandler, type HttpHandlerOptions, type FetchRequestInfo, type HttpCloseOptions } from './transports/serve-http.js';
export type { ContentBlock, TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource } from './protocol/content.js';
export type { LogLevel, Implementation, ClientCapabilities } from './protocol/meta.js';
export { MODERN_VERSIONS, LEGACY_VERSIONS, type Era } from './protocol/versions.js';
export { ErrorCode, RpcError } from './jsonrpc/errors.js';
export { SqliteAuditSink, JsonlAuditSink, FanoutAuditSink, createDefaultAuditSink, queryAuditLog, redactArguments, SqliteDriverError, DEFAULT_RETENTION, type AuditRecord, type AuditSink, type AuditQuery, type RetentionPolicy, type SqliteAuditSinkOptions, type PruneResult } from './audit/index.js';
export type { RateLimitOptions, RateLimitRule } from './policy/rate-limit.js';
export type { LimitOptions } from './server/server.js';
