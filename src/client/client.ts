import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { ClientMiddlewareChain, type ClientMiddleware } from './middleware.js';
import { isPlainObject } from '../protocol/content.js';
import type { ClientCapabilities, Implementation } from '../protocol/meta.js';
import { inputsForRequest } from './inputs/call-inputs.js';
import { Method } from '../protocol/methods.js';
import type { Era } from '../protocol/versions.js';
import { checkInputOptions, increasingOnly } from './call-checks.js';
import { CONNECT_TIMEOUT_CLOSE_GRACE_MS, withinConnectTimeout } from './connect-timeout.js';
import { ConnectionError } from './errors.js';
import { handshake, type ServerIdentity } from './handshake.js';
import { declareCapabilities } from './inputs/capabilities.js';
import { InputResponder } from './inputs/responder.js';
import { openTransport } from './open-transport.js';
import type { CloseOptions } from './transport.js';
import type { ReadResourceResult } from './resources.js';
import * as surface from './server-surface.js';
import { answerLegacyRequests } from './server-requests.js';
import { Listening } from './listening.js';
import type { ClientEventListener, ClientEventName } from './server-events.js';
import { ClientSession, type RequestOptions } from './session.js';
import { SessionRenewal } from './session-renewal.js';
import { SharedRun } from './shared-run.js';
import { fetchToolPages, lookupTool, runToolCall, type ToolCallDeps } from './tool-call.js';
import { announceRootsChanged, changeLogLevel, routeRequestNotification } from './client-settings.js';
import { ToolCatalog } from './tool-catalog.js';
import * as tasks from './tasks.js';
import { ClientSkills } from './skills.js';
import type { CallToolOptions, CallToolResult, ClientTarget, ListedTool, LogLevel, Progress, RequestMethodOptions, ToolClientOptions } from './types.js';

const DEFAULT_CLIENT_INFO: Implementation = { name: 'toolwright-client', version: '0.1.0' };
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_INPUT_ROUNDS = 8;

/**
 * A client for the tools of one MCP server, in either protocol era. It
 * treats the server as untrusted: every result is checked, tool definitions
 * it cannot use safely are left out, and structured output is validated
 * against the tool's outputSchema.
 */
export class ToolClient {
  private session?: ClientSession;
  private identity?: ServerIdentity;
  private catalog?: ToolCatalog;
  private listing?: SharedRun<ListedTool[]>;
  /** Re-establishes a legacy session the server ended. */
  private readonly renewal: SessionRenewal;
  private state: 'new' | 'connecting' | 'open' | 'closed' = 'new';
  private readonly warn: (message: string) => void;
  /** Answers the server's questions; absent without `onInputRequest`. */
  private inputs?: InputResponder;
  /** Skills (SEP-2640, skills.ts): listed, loaded and read with the checks the extension asks for. */
  readonly skills = new ClientSkills(() => this.surface());
  /** The capabilities declared at connect (a call's own `onInputRequest` answers within them). */
  private declared?: ClientCapabilities;
  /** A legacy server's questions go to the handler of the call whose request they belong to, by its id. */
  private readonly callInputs = new Map<number, InputResponder>();
  /** Listeners, resource subscriptions, and the modern stream that asks for them. */
  private readonly listening: Listening;

  constructor(
    private readonly target: ClientTarget,
    private readonly options: ToolClientOptions = {},
  ) {
    this.warn = options.onWarning ?? ((message) => console.warn(`toolwright client: ${message}`));
    checkInputOptions(options);
    this.listening = new Listening(this.warn, options);
    this.renewal = new SessionRenewal((identity, session) => {
      this.identity = identity;
      // The new session knows none of the old one's resource subscriptions.
      this.listening
        .resubscribe((m, p, o) => session.request(m, p, o))
        .catch((err: unknown) => this.warn(`resource updates may be missed: subscribing again failed: ${(err as Error).message}`));
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  /** Connects and finds out which era the server speaks. */
  static async connect(target: ClientTarget, options: ToolClientOptions = {}): Promise<ToolClient> {
    const client = new ToolClient(target, options);
    await client.connect();
    return client;
  }

  async connect(): Promise<void> {
    if (this.state !== 'new') throw new Error('connect() can be called once per client');
    this.state = 'connecting';
    const o = this.options;
    const transport = await openTransport(this.target, {
      maxMessageBytes: o.maxMessageBytes,
      closeGraceMs: o.closeGraceMs,
      onWarning: this.warn,
      authorization: o.authorization,
      onWireMessage: o.onWireMessage,
    }).catch((err: unknown) => {
      this.state = 'closed';
      throw err;
    });
    transport.onNotification = (n) => this.onServerNotification(n);
    // Input capabilities are declared for a client-wide handler, or (inputCapabilities alone) for calls that bring their own.
    const answers = o.onInputRequest !== undefined || o.inputCapabilities !== undefined;
    const capabilities = declareCapabilities(o.capabilities ?? {}, answers, o.inputCapabilities, this.warn);
    this.declared = capabilities;
    if (o.onInputRequest) this.inputs = new InputResponder(o.onInputRequest, capabilities);
    if (answers) {
      // The session's era is set before `notifications/initialized`, so a legacy server may ask right away.
      // Who answers a legacy server's question: the handler of the call it belongs to, else the client's.
      transport.onServerRequest = answerLegacyRequests(
        ({ relatedRequest }) => (typeof relatedRequest?.id === 'number' ? this.callInputs.get(relatedRequest.id) : undefined) ?? this.inputs,
        () => this.session?.wire.era,
        this.warn,
      );
    }
    const identity = { clientInfo: o.clientInfo ?? DEFAULT_CLIENT_INFO, capabilities, logLevel: o.logLevel };
    this.session = new ClientSession(transport, identity, o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const asked: string[] = [];
      const handshaking = handshake(this.session, { preference: o.era ?? 'auto', probeTimeoutMs: o.probeTimeoutMs ?? 5_000, onRequest: (m) => asked.push(m) });
      this.identity = o.connectTimeoutMs === undefined ? await handshaking : await withinConnectTimeout(handshaking, o.connectTimeoutMs, asked, transport);
    } catch (err) {
      this.state = 'closed';
      // connectTimeoutMs bounds the whole connect: a server that let it run out does not get the
      // usual grace to exit on its own (issue 21: --connect-timeout 2000 gave up after 5.2 s).
      const timedOut = err instanceof ConnectionError && err.reason === 'connect-timeout';
      await transport.close(timedOut ? { graceMs: CONNECT_TIMEOUT_CLOSE_GRACE_MS } : {}).catch(() => {});
      throw err;
    }
    this.catalog = new ToolCatalog(transport.kind === 'http', this.warn);
    this.state = 'open';
    // Legacy servers announce changes unasked; a modern one is asked with subscriptions/listen.
    this.listening.start(this.session, this.identity.era, (n) => this.onServerNotification(n), this.warn);
  }

  /**
   * Listens to the server: `toolsChanged`, `promptsChanged`, `resourcesChanged`,
   * `resourceUpdated` (for resources given to subscribeResource) and `log`.
   * Before or after connect(); a modern server is asked for what is listened
   * to (subscriptions/listen), a legacy one announces changes unasked. Returns
   * the function that removes the listener.
   */
  on<E extends ClientEventName>(event: E, listener: ClientEventListener<E>): () => void {
    return this.listening.on(event, listener);
  }

  /**
   * Asks to hear when a resource changes (the `resourceUpdated` event): on a
   * modern server through the subscriptions/listen stream, resolved once the
   * server acknowledged it; on a legacy one with `resources/subscribe`.
   */
  subscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.open();
    return this.listening.subscribe(uri, this.era!, (m, p, o) => this.rpc(m, p, o), options.signal);
  }

  /** Stops hearing about a resource (modern: the stream is asked again without it; legacy: `resources/unsubscribe`). */
  unsubscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.open();
    return this.listening.unsubscribe(uri, this.era!, (m, p, o) => this.rpc(m, p, o), options.signal);
  }

  /**
   * Sends any request and returns its result as the server sent it (an
   * `input_required` one included), with the client's era framing, timeout
   * and cancellation: for methods this client has no wrapper for. Protocol
   * errors throw McpRpcError, as elsewhere.
   */
  async request(method: string, params: Record<string, unknown> = {}, options: RequestMethodOptions = {}): Promise<Record<string, unknown>> {
    if (typeof method !== 'string' || method.length === 0) throw new TypeError('method must be a non-empty string');
    if (!isPlainObject(params)) throw new TypeError('params must be a plain object');
    const { _meta, ...rest } = params;
    const meta = { ...(isPlainObject(_meta) ? _meta : {}), ...options.meta };
    const onProgress = options.onProgress && increasingOnly(options.onProgress);
    return this.rpc(method, rest, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      acceptInputRequired: true,
      progress: onProgress !== undefined,
      onNotification: (n) => this.onCallNotification(n, onProgress),
      ...(Object.keys(meta).length ? { meta } : {}),
    });
  }

  get era(): Era | undefined {
    return this.identity?.era;
  }
  get protocolVersion(): string | undefined {
    return this.identity?.protocolVersion;
  }
  /** Self-reported and unverified: for display and logs only (discover.mdx). */
  get serverInfo(): Implementation | undefined {
    return this.identity?.serverInfo;
  }
  get capabilities(): Record<string, unknown> | undefined {
    return this.identity?.capabilities;
  }
  get instructions(): string | undefined {
    return this.identity?.instructions;
  }

  /**
   * All the server's tools, following every page. A modern listing is reused
   * while its `ttlMs` lasts; `refresh` fetches it again regardless.
   */
  async listTools(options: { refresh?: boolean; signal?: AbortSignal } = {}): Promise<ListedTool[]> {
    const catalog = this.open().catalog;
    if (!options.refresh && catalog.isFresh()) return catalog.list();
    // Concurrent callers share one fetch; each one's signal ends only its own wait (SharedRun).
    if (!this.listing || this.listing.stopped) {
      const listing = new SharedRun(Method.toolsList, async (signal) => {
        await fetchToolPages(this.toolCalls(), catalog, this.options.maxListPages ?? 100, signal);
        return catalog.list();
      });
      const done = () => {
        if (this.listing === listing) this.listing = undefined;
      };
      listing.result.then(done, done);
      this.listing = listing;
    }
    return this.listing.join(options.signal);
  }

  /**
   * Calls a tool. A tool that fails returns its result with `isError: true`;
   * only protocol and connection problems throw. When a modern server needs
   * input first (mrtr.mdx), `onInputRequest` answers and the call is retried
   * with the answers, as a new request, until it completes.
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    if (!isPlainObject(args)) throw new TypeError('tool arguments must be a plain object');
    if (options.onInputRequest !== undefined && typeof options.onInputRequest !== 'function') throw new TypeError('onInputRequest must be a function');
    const entry = await lookupTool(this.open().catalog, name, () => this.listTools({ refresh: true, signal: options.signal }));
    // A call's own handler answers its questions instead of the client's (within the capabilities declared at connect).
    const { inputs, capabilities } = inputsForRequest(this.declared, this.inputs, options);
    const handler = options.onInputRequest;
    const sent: number[] = [];
    const onRequestId = handler ? (id: number) => (sent.push(id), this.callInputs.set(id, inputs!)) : undefined;
    try {
      return await runToolCall(this.toolCalls(), name, args, options, entry, { inputs, onRequestId, capabilities });
    } finally {
      for (const id of sent) this.callInputs.delete(id);
    }
  }

  /**
   * Reads a resource by its URI (`resources/read`), e.g. a `resource_link`
   * a tool returned: servers hand large results over this way. A modern
   * server that asks for input first is answered by `onInputRequest`.
   */
  readResource(uri: string, options: surface.SurfaceOptions = {}): Promise<ReadResourceResult> {
    return surface.readResource(this.surface(options), uri, options);
  }

  /** Every resource the server lists (`resources/list`, all pages). */
  listResources(options: { signal?: AbortSignal } = {}): Promise<surface.ListedResource[]> {
    return surface.listResources(this.surface(), options);
  }

  /** Every resource template the server lists (`resources/templates/list`, all pages). */
  listResourceTemplates(options: { signal?: AbortSignal } = {}): Promise<surface.ListedResourceTemplate[]> {
    return surface.listResourceTemplates(this.surface(), options);
  }

  /** Every prompt the server lists (`prompts/list`, all pages). */
  listPrompts(options: { signal?: AbortSignal } = {}): Promise<surface.ListedPrompt[]> {
    return surface.listPrompts(this.surface(), options);
  }

  /** A prompt's messages for these arguments (`prompts/get`); input the server asks for first goes to `onInputRequest`. */
  getPrompt(name: string, args: Record<string, string> = {}, options: surface.SurfaceOptions = {}): Promise<surface.GetPromptResult> {
    return surface.getPrompt(this.surface(options), name, args, options);
  }

  /** Suggestions for an argument of a prompt or resource template (`completion/complete`). */
  complete(
    ref: surface.CompletionRef,
    argument: { name: string; value: string },
    context: Record<string, string> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<surface.CompleteResult> {
    return surface.complete(this.surface(), ref, argument, context, options);
  }

  /** A task's state (`tasks/get`, tasks extension); an unknown, expired or other caller's task is an McpRpcError (-32602). */
  getTask(taskId: string, options: { signal?: AbortSignal } = {}): Promise<tasks.TaskInfo> {
    return tasks.getTask(this.tasks(), taskId, options);
  }

  /** Asks the server to stop a task (`tasks/cancel`); cooperative, so it may still end otherwise. */
  cancelTask(taskId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    return tasks.cancelTask(this.tasks(), taskId, options);
  }

  /** Answers a task's outstanding questions (`tasks/update`), keyed as its `inputRequests` asked them. */
  updateTask(taskId: string, inputResponses: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<void> {
    return tasks.updateTask(this.tasks(), taskId, inputResponses, options);
  }

  /** What following a task (tasks.ts) needs of the client. */
  private tasks(timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, inputs = this.inputs): tasks.TaskDeps {
    return {
      rpc: (method, params, options) => this.rpc(method, params, options),
      inputs: () => inputs,
      timeoutMs,
      maxInputRounds: this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
      warn: this.warn,
    };
  }

  /** What `tools/call` and `tools/list` (tool-call.ts) need of the client. */
  private toolCalls(): ToolCallDeps {
    return {
      rpc: (method, params, options) => this.rpc(method, params, options),
      era: () => this.era,
      capabilities: () => this.capabilities,
      wire: () => {
        const session = this.open().session;
        return { era: session.wire.era, transportKind: session.transport.kind };
      },
      transportKind: () => this.session?.transport.kind,
      relist: async (signal) => void (await this.listTools({ refresh: true, signal })),
      entry: (name) => this.catalog?.get(name),
      tasks: (timeoutMs, inputs) => this.tasks(timeoutMs, inputs),
      onCallNotification: (n, onProgress) => this.onCallNotification(n, onProgress),
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxInputRounds: this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
    };
  }

  /** What the resources, prompts and completion methods (server-surface.ts) need of the client. */
  private surface(options: surface.SurfaceOptions = {}): surface.SurfaceDeps {
    const { inputs, capabilities } = inputsForRequest(this.declared, this.inputs, options);
    return {
      rpc: (method, params, options) => this.rpc(method, params, options),
      era: () => this.era,
      inputs: () => inputs,
      ...(capabilities ? { capabilities } : {}),
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxInputRounds: this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
      maxListPages: this.options.maxListPages ?? 100,
      warn: this.warn,
    };
  }

  /** Which server log messages `onLog` receives from now on: legacy `logging/setLevel`; modern, `_meta` logLevel on every request after this (logging.mdx). */
  setLogLevel(level: LogLevel): Promise<void> {
    return changeLogLevel(this.open().session, level, (method, params) => this.rpc(method, params, {}));
  }

  /** After the roots `onInputRequest` answers with changed: tells a legacy server that declared roots.listChanged; false when nothing was sent. */
  notifyRootsChanged(): Promise<boolean> {
    return announceRootsChanged(this.open().session, this.declared);
  }

  /** Ends the session; a stdio server is given `graceMs` (default closeGraceMs) per step to exit (stdin closed, SIGTERM, SIGKILL). */
  async close(options: CloseOptions = {}): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.listening.stop();
    await this.session?.transport.close(options);
  }

  private readonly middleware = new ClientMiddlewareChain();

  /**
   * Adds middleware around every request sent after connecting (tools,
   * resources, prompts, completion, tasks): for headers, logging, retries
   * and trace context. First added runs outermost.
   */
  use(middleware: ClientMiddleware): this {
    this.middleware.add(middleware);
    return this;
  }

  /** One request, through the client's middleware (client.use) when it has any. */
  private rpc(method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>> {
    return this.middleware.run(method, params, options, (p, o) => this.send(method, p, o));
  }

  /** One request; a legacy HTTP session the server ended is re-established once (session-renewal.ts). */
  private send(method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>> {
    return this.renewal.send(this.open().session, method, params, options);
  }

  private onCallNotification(n: JsonRpcNotification, onProgress?: (p: Progress) => void): void {
    routeRequestNotification(n, onProgress, (other) => this.onServerNotification(other), this.warn);
  }

  private onServerNotification(n: JsonRpcNotification): void {
    // The listing is dropped before anyone is told, so a listener that lists again gets the new one.
    if (n.method === Method.toolsListChanged) this.catalog?.invalidate();
    this.listening.notify(n);
  }

  private open(): { session: ClientSession; catalog: ToolCatalog } {
    if (this.state !== 'open' || !this.session || !this.catalog) {
      throw new ConnectionError(this.state === 'closed' ? 'the client is closed' : 'the client is not connected; call connect() first', 'closed');
    }
    return { session: this.session, catalog: this.catalog };
  }
}
