/**
 * toolwright/client/core: the runtime-neutral client (sessions, the tool
 * catalogue, calls, tasks, the Streamable HTTP transport, OAuth on Web
 * Crypto). It runs wherever `fetch` does: Node, browsers, workers; bundlers
 * pick it for `toolwright/client` under the "browser" condition. What needs
 * Node (stdio servers, the loopback login, files) is in client/node.ts.
 */
export { ToolClient } from './client.js';
export type { ClientMiddleware, ClientRequestContext } from './middleware.js';
export {
  AuthorizationError,
  CancelledError,
  ConnectionError,
  InputHandlerError,
  InputRejectedError,
  InputRequiredError,
  InputRoundsExceededError,
  McpRpcError,
  OutputValidationError,
  ProtocolViolationError,
  TimeoutError,
  ToolClientError,
  UnsupportedInputRequestError,
  type ConnectionFailure,
} from './errors.js';
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
} from './inputs/types.js';
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
  RequestMethodOptions,
  ResourceUpdate,
  StdioTarget,
  ToolClientOptions,
  TransportTarget,
} from './types.js';
export type { ReadResourceResult } from './resources.js';
export { ClientSkills, SkillVerificationError, SKILLS_EXTENSION, type LoadedSkill, type SkillEntry, type SkillResource } from './skills.js';
export type { ClientEventListener, ClientEventName, ClientEvents } from './server-events.js';
export { TASKS_EXTENSION, TaskFailedError, TaskCancelledError, TaskExpiredError, type TaskInfo, type TaskStatus, type TaskCallOptions } from './tasks.js';
export type { ListedResource, ListedResourceTemplate, ListedPrompt, GetPromptResult, CompleteResult, CompletionRef, SurfaceOptions } from './server-surface.js';
export { InputRoundsExceeded } from './server-surface.js';
export type { ResourceContents } from '../protocol/content.js';
export type { ClientTransport, IncomingResponse, SendOptions, ServerRequestContext, ServerRequestHandler, WireContext } from './transport.js';
export type { Era } from '../protocol/versions.js';
export type { WireDirection, WireListener } from './wire-tap.js';
// OAuth 2.1 authorization for HTTP servers (basic/authorization in the spec).
export { OAuthClient } from './auth/oauth-client.js';
export { MemoryTokenStore } from './auth/token-store.js';
export { idJagAssertion, type IdJagOptions } from './auth/id-jag.js';
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
} from './auth/types.js';
// The transport, for callers that build one themselves and pass it as { transport }.
export { HttpClientTransport, type HttpTransportOptions } from './transports/http-client.js';
// Types the public declarations name (ToolClient.close, the stream transports a custom transport builds on).
export type { CloseOptions } from './transport.js';
export type { StreamClientTransport } from './transports/stream-transport.js';
export type { StreamConnection } from './transports/stream-connection.js';
