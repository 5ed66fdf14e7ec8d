/**
 * toolwright — the server API. Other entry points, so that a server loads only
 * what it uses: `toolwright/client`, `toolwright/testing`, `toolwright/toolsets`
 * (the built-in tools) and `toolwright/config` (toolwright.config.* files).
 */
export { ToolServer, type ToolServerOptions } from './server/server.js';
export { ToolRegistry } from './server/registry.js';
export { defineTool, ToolError, type Tool, type ToolContext, type ToolResult, type ToolAnnotations, type Icon, type JsonSchema } from './server/tool.js';
export { ToolDefinitionError } from './server/compile-tool.js';
export {
  defineResource,
  defineResourceTemplate,
  ResourceRegistry,
  ResourceDefinitionError,
  UriTemplate,
  type Resource,
  type ResourceTemplate,
  type ResourceContext,
  type ResourceContent,
  type ReadReturn,
  type Completer,
  type TemplateVariables,
} from './server/primitives/resources/index.js';
export { SkillCatalog, SkillDefinitionError, SKILLS_EXTENSION, type SkillEntry, type SkillsFolderOptions } from './server/primitives/skills/index.js';
export {
  defineAppResource,
  defineAppTool,
  MCP_APPS_EXTENSION,
  MCP_APP_MIME_TYPE,
  type AppResource,
  type AppResourceDefinition,
  type AppResourceUiMeta,
  type AppCsp,
  type AppPermissions,
  type AppToolDefinition,
  type AppToolVisibility,
} from './server/apps/index.js';
export {
  definePrompt,
  PromptRegistry,
  PromptDefinitionError,
  type Prompt,
  type PromptArgument,
  type PromptMessage,
  type PromptReturn,
  type PromptContext,
} from './server/primitives/prompts/index.js';
export type { RequestContext } from './server/primitives/request-context.js';
export { MethodTable, type Primitive, type MethodHandler, type MethodResult, type RequestFacts } from './server/primitives/method-table.js';
export { withJson } from './server/serialized.js';
export type { TrackedRequest } from './server/primitives/tracked.js';
export type {
  Middleware,
  MiddlewareContext,
  MiddlewareFor,
  MethodParams,
  MiddlewareEntry,
  MiddlewareModule,
  AnyMiddleware,
  Next,
  ToolCallMiddlewareContext,
  ToolCallMiddlewareResult,
  PromptGetMiddlewareContext,
  ResourceReadMiddlewareContext,
} from './server/middleware.js';
export type { ClientNotification, ClientNotificationObserver } from './server/client-notifications.js';
export type { TracingOptions } from './tracing/options.js';
export type { PrimitiveContext } from './server/primitive-context.js';
export type { ServerConnection, ConnectOptions, ReceiveOptions, Reply } from './server/connection.js';
export type { JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId } from './jsonrpc/types.js';
export { ANONYMOUS_CALLER, callerKey, type Caller, type CallerMethod } from './policy/auth/caller.js';
export { upstreamToken } from './policy/auth/upstream-token.js';
export type { AuthInfo, AuthenticateResult } from './policy/auth/principal.js';
export type { AuthenticateHook } from './transports/http-authorization.js';
export type { AuthenticateRequest, RequestHeaders } from './transports/http-request.js';
export type { ResourceServerOptions, IntrospectionConfig } from './policy/auth/options.js';
export type { ApiKeyEntry } from './policy/auth/api-keys.js';
export type { ScopePolicyOptions, ScopedEntry, ScopeFields } from './policy/auth/scope-policy.js';
export type { Exchange, LegacySession } from './server/exchange.js';
export type { Logger } from './runtime/logger.js';
export { MemoryResultStore, type ResultStore, type ResultStoreOptions, type StoredContent } from './state/result-store.js';
export {
  StateUnavailableError,
  redisConnection,
  type CreateLimiter,
  type RedisConnection,
  type RedisConnectionOptions,
  type StateFailurePolicy,
  type StateOptions,
} from './state/index.js';
export { RedisResultStore, type RedisResultStoreOptions } from './state/redis/result-store.js';
export { redisLimiters } from './state/redis/limits.js';
export { InProcessEventBus, type EventBus, type BusEvent, type BusListener, type ListKindName } from './state/bus.js';
export { InMemorySessionRecords, type SessionRecord, type SessionRecords } from './state/sessions.js';
export { RedisEventBus } from './state/redis/bus.js';
export { RedisSessionRecords } from './state/redis/sessions.js';
export { RedisTaskStore } from './state/redis/tasks.js';
export type { TaskStore, TaskRecord, TaskStatus, TaskPatch, TaskCursor, TaskError } from './tasks/store.js';
export type { TasksOptions } from './server/primitives/tasks/options.js';
export type { TaskMode } from './server/primitives/tasks/policy.js';
export type { ApprovalMode } from './server/pipeline/index.js';
export type { AuditGuard, AuditFailurePolicy } from './server/pipeline/audit-guard.js';
export type { HostGuardOptions } from './transports/http-guard.js';
export type { HttpRequestLimitOptions, HttpSocketLimitOptions, AuthFailureLimit } from './transports/http-limits.js';
export type { HttpLimitOptions } from './transports/http-limits.js';
export type { AuditStatus, AuditReason } from './audit/record.js';
export type { JsonRpcResultResponse, JsonRpcErrorResponse, JsonRpcErrorObject } from './jsonrpc/types.js';
export type { ResultEncoder, StructuredJson } from './protocol/result.js';
export type { RequestEnvelope } from './protocol/meta.js';
export type { Annotations } from './protocol/content.js';
export type { MaybeResult, Route } from './server/primitives/method-table.js';
export type { ChangeTracked } from './server/change-tracked.js';
export type { CompiledTool } from './server/compile-tool.js';
export type { CompiledPrompt } from './server/primitives/prompts/compile.js';
export type { CompiledResource, CompiledTemplate } from './server/primitives/resources/compile.js';
export type { ElicitSchema, AskOptions } from './server/tool.js';
export type { StandardSchemaV1, StandardResult } from './schema/standard.js';
export type { Validator, ValidationOutcome } from './schema/compile.js';
export type { HeaderParam } from './protocol/header-params.js';
export type { ArgsChecked, ArgsSchema } from './server/primitives/args-schema.js';
export { serveStdio, type StdioServeOptions, type StdioServerHandle } from './transports/stdio-server.js';
export {
  serveHttp,
  createHttpHandler,
  type HttpServeOptions,
  type HttpServerHandle,
  type HttpRoute,
  type HttpHandler,
  type HttpHandlerOptions,
  type FetchRequestInfo,
  type HttpCloseOptions,
} from './transports/serve-http.js';
export type { ContentBlock, TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource } from './protocol/content.js';
export type { LogLevel, Implementation, ClientCapabilities } from './protocol/meta.js';
export { MODERN_VERSIONS, LEGACY_VERSIONS, type Era } from './protocol/versions.js';
export { ErrorCode, RpcError } from './jsonrpc/errors.js';
export {
  SqliteAuditSink,
  JsonlAuditSink,
  JsonlTrailSink,
  JsonlAuditReader,
  FanoutAuditSink,
  createDefaultAuditSink,
  type DefaultTrailFormat,
  type JsonlTrailOptions,
  queryAuditLog,
  redactArguments,
  SqliteDriverError,
  DEFAULT_RETENTION,
  type AuditRecord,
  type AuditSink,
  type AuditQuery,
  type RetentionPolicy,
  type SqliteAuditSinkOptions,
  type PruneResult,
  SqliteAuditReader,
  type AuditReader,
  type StoredAuditRecord,
  type AuditPruneBounds,
  type AuditPruneCounts,
} from './audit/index.js';
// The PostgreSQL trail: `pg` is imported only when one of these connects.
export {
  PostgresAuditSink,
  PostgresAuditReader,
  PostgresDriverError,
  DEFAULT_POSTGRES_RETENTION,
  type PostgresAuditSinkOptions,
  type PostgresPoolOptions,
  type PostgresRetentionPolicy,
} from './audit/postgres/index.js';
export type {
  CreateRateLimitStore,
  FlexibleLimiter,
  RateLimitOptions,
  RateLimitPairDecide,
  RateLimitPairTool,
  RateLimitRule,
  RateLimitStore,
  RateLimitTake,
  RateLimitWindow,
} from './policy/rate-limit.js';
export type { LimitOptions, ServerTasksOptions, DrainEvent } from './server/server.js';
