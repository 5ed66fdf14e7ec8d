/**
 * toolwright/client: a client for the tools of any MCP server, over stdio,
 * Streamable HTTP or a custom transport, in both protocol eras.
 */
export { ToolClient } from './client/client.js';
export type { ClientMiddleware, ClientRequestContext } from './client/middleware.js';
export {
  AuthorizationError,
  CancelledError,
  ConnectionError,
  InputHandlerError,
  InputRequiredError,
  InputRoundsExceededError,
  McpRpcError,
  OutputValidationError,
  ProtocolViolationError,
  TimeoutError,
  ToolClientError,
  UnsupportedInputRequestError,
  type ConnectionFailure,
} from './client/errors.js';
export type {
  CreateMessageResult,
  ElicitResult,
  InputCapability,
  InputRequest,
  InputRequestHandler,
  InputRequestMethod,
  InputResult,
  ListRootsResult,
  SamplingContent,
} from './client/inputs/types.js';
export type {
  CallToolOptions,
  CallToolResult,
  ClientCapabilities,
  ClientTarget,
  ContentBlock,
  EraPreference,
  HttpTarget,
  Implementation,
  ListedTool,
  LogLevel,
  LogMessage,
  Progress,
  StdioTarget,
  ToolClientOptions,
  TransportTarget,
} from './client/types.js';
export type { ReadResourceResult } from './client/resources.js';
export { TASKS_EXTENSION, TaskFailedError, TaskCancelledError, TaskExpiredError, type TaskInfo, type TaskStatus, type TaskCallOptions } from './client/tasks.js';
export type { ListedResource, ListedResourceTemplate, ListedPrompt, GetPromptResult, CompleteResult, CompletionRef, SurfaceOptions } from './client/server-surface.js';
export { InputRoundsExceeded } from './client/server-surface.js';
export type { ResourceContents } from './protocol/content.js';
export type { ClientTransport, IncomingResponse, SendOptions, ServerRequestContext, ServerRequestHandler, WireContext } from './client/transport.js';
export type { Era } from './protocol/versions.js';
// OAuth 2.1 authorization for HTTP servers (basic/authorization in the spec).
export { OAuthClient } from './client/auth/oauth-client.js';
export { FileTokenStore, MemoryTokenStore, defaultConfigDir } from './client/auth/token-store.js';
export { LoopbackRedirect, openBrowser, type LoopbackOptions } from './client/auth/loopback.js';
export { idJagAssertion, type IdJagOptions } from './client/auth/id-jag.js';
export type {
  AssertionTarget,
  AuthorizationPrompt,
  ClientMetadata,
  ClientRegistration,
  OAuthOptions,
  PrivateKeyCredentials,
  StoredTokens,
  TokenEndpointAuthMethod,
  TokenStore,
} from './client/auth/types.js';
// The transports, for callers that build one themselves and pass it as { transport }.
export { HttpClientTransport, type HttpTransportOptions } from './transports/http-client.js';
export { StdioClientTransport, type StdioTransportOptions } from './transports/stdio-client.js';
