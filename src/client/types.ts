import type { ContentBlock } from '../protocol/content.js';
import type { ClientCapabilities, Implementation, LogLevel } from '../protocol/meta.js';
import type { HttpTarget } from './transports/http-client.js';
import type { StdioTarget } from './transports/stdio-target.js';
import type { OAuthClient } from './auth/oauth-client.js';
import type { OAuthOptions } from './auth/types.js';
import type { InputCapability, InputRequestHandler } from './inputs/types.js';
import type { ClientTransport } from './transport.js';
import type { TaskCallOptions } from './task-types.js';
import type { ListedTool } from './listed-tool.js';
import type { WireListener } from './wire-tap.js';

export type { ContentBlock, ClientCapabilities, Implementation, LogLevel, HttpTarget, StdioTarget, ListedTool };

/** Which protocol era to speak: detect it (default), or insist on one. */
export type EraPreference = 'auto' | 'modern' | 'legacy';

/** A transport built elsewhere (the in-memory pair, a custom channel). */
export interface TransportTarget {
  transport: ClientTransport;
}

export type ClientTarget = StdioTarget | HttpTarget | TransportTarget;

/** A tool result. `isError: true` means the tool failed and says why in `content`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface LogMessage {
  level: LogLevel;
  data: unknown;
  logger?: string;
}

/** A subscribed resource changed (`notifications/resources/updated`): read it again to see how. */
export interface ResourceUpdate {
  uri: string;
}

/** Options of `ToolClient.request`, for any method. */
export interface RequestMethodOptions {
  /** Aborting cancels the request, as for a tool call. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this request. */
  timeoutMs?: number;
  /** Asks the server for progress (`_meta.progressToken`) and receives it. */
  onProgress?: (progress: Progress) => void;
  /** Extra `_meta` for the request (the protocol's own keys always win). */
  meta?: Record<string, unknown>;
}

export interface CallToolOptions {
  /** Aborting cancels the call (stdio: notifications/cancelled; HTTP: the response stream closes). */
  signal?: AbortSignal;
  /**
   * Overrides the client's `timeoutMs` for this call. It covers the whole call:
   * every round of input and the time spent waiting for `onInputRequest`.
   */
  timeoutMs?: number;
  /** Asks the server for progress and receives it. */
  onProgress?: (progress: Progress) => void;
  /** Extra `_meta` for the request (the protocol's own keys always win). */
  meta?: Record<string, unknown>;
  /**
   * Answers what the server asks while it serves this call, instead of the
   * client's `onInputRequest`. It answers within the capabilities declared at
   * connect: those of the client's handler, or `inputCapabilities` given
   * without one (for a client whose calls each bring their own). A legacy
   * server's question names no call on stdio: there it reaches this handler
   * while this is the only call in flight, and the client's otherwise.
   */
  onInputRequest?: InputRequestHandler;
  /**
   * Lets the server run this call as a task (the io.modelcontextprotocol/tasks
   * extension, modern servers): the request declares the extension, and if
   * the server answers with a task the client polls it, answers its questions
   * with `onInputRequest`, and resolves with its final result; aborting
   * `signal` cancels the task. `timeoutMs` then bounds each request and each
   * round of answers, not the task, which runs until it ends, its TTL passes,
   * or `signal` aborts. Ignored by legacy servers.
   */
  task?: boolean | TaskCallOptions;
  /**
   * Only these of the input capabilities declared at connect hold for this call: a modern
   * server sees only them in this request's client capabilities, and a question outside them is
   * refused (a gateway relaying a caller that declared fewer). Legacy servers learned the
   * capabilities at initialize; there only the refusal applies.
   */
  inputCapabilities?: readonly InputCapability[];
}

export interface ToolClientOptions {
  /** Default 'auto': detect the server's era as the spec's transport bindings describe. */
  era?: EraPreference;
  clientInfo?: Implementation;
  /**
   * Capabilities this client declares (default none). `elicitation`,
   * `sampling` and `roots` are declared only with `onInputRequest` (see
   * `inputCapabilities`); an object given here for one of them refines it,
   * e.g. `elicitation: { form: {}, url: {} }` or `sampling: { tools: {} }`.
   */
  capabilities?: ClientCapabilities;
  /**
   * Answers what a server asks while it serves a call: a form for the user
   * (`elicitation/create`, including approval of destructive tools), a model
   * completion (`sampling/createMessage`) or the client's roots (`roots/list`).
   * Modern servers ask with an input_required result and the client retries
   * the call with the answers; legacy servers send requests, answered with what
   * this returns. Without it, no such capability is declared and a modern
   * input_required result throws InputRequiredError.
   */
  onInputRequest?: InputRequestHandler;
  /**
   * Which of elicitation, sampling and roots to declare (default all three
   * when `onInputRequest` is set). Given without `onInputRequest`, they are
   * declared for calls that pass their own handler (CallToolOptions).
   */
  inputCapabilities?: InputCapability[];
  /** Most rounds of answers one call may take before InputRoundsExceededError (default 8). */
  maxInputRounds?: number;
  /** Time any request may take, the handshake included (default 60 s). */
  timeoutMs?: number;
  /**
   * How long connecting may take in all (the era probe, `initialize`), after which
   * the connection fails saying what was waited for. Default: no bound beyond
   * `timeoutMs` per request.
   */
  connectTimeoutMs?: number;
  /** On stdio, how long the `server/discover` probe waits before assuming a legacy server (default 5 s). */
  probeTimeoutMs?: number;
  /** Largest message accepted from the server (default 16 MiB). */
  maxMessageBytes?: number;
  /** Most `tools/list` pages followed before giving up (default 100). */
  maxListPages?: number;
  /**
   * Told of every JSON-RPC message the client sends and receives, in order: for a protocol
   * debugger (the console's history). Messages only, never HTTP headers; don't change them.
   */
  onWireMessage?: WireListener;
  /** Where warnings go (rejected tool definitions, ignored invalid messages); default: stderr. */
  onWarning?: (message: string) => void;
  /**
   * Told when the server announces that its tools changed (the cached list is
   * dropped first, so the next listTools() fetches it afresh). Setting it
   * subscribes: a modern server is asked with a `subscriptions/listen` stream,
   * open from connect() to close(); a legacy server sends
   * `notifications/tools/list_changed` on its own (stdio, or the session's
   * event stream on HTTP).
   */
  onToolsListChanged?: () => void;
  /** Told when the server's prompts change (as onToolsListChanged; also `client.on('promptsChanged', …)`). */
  onPromptsListChanged?: () => void;
  /** Told when the server's list of resources changes (also `client.on('resourcesChanged', …)`). */
  onResourcesListChanged?: () => void;
  /** Told when a resource given to `subscribeResource` changes (also `client.on('resourceUpdated', …)`). */
  onResourceUpdated?: (update: ResourceUpdate) => void;
  /** Log messages the server sends (`notifications/message`; also `client.on('log', …)`). */
  onLog?: (message: LogMessage) => void;
  /** The least severe server log level to receive; sent only when set. */
  logLevel?: LogLevel;
  /** stdio: how long the server may take to exit after stdin closes before SIGTERM/SIGKILL (default 3 s each). */
  closeGraceMs?: number;
  /**
   * HTTP: OAuth 2.1 authorization as the MCP authorization spec asks of clients
   * (discovery, PKCE, dynamic registration or Client ID Metadata Documents, refresh,
   * step-up). Options, or an OAuthClient built for the server's URL (to share its
   * tokens, or to `login()` first). Without it, a server that answers 401 fails the connection.
   */
  authorization?: OAuthClient | OAuthOptions;
}
