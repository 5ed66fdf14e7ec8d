/**
 * The console's side of the MCP Apps postMessage bridge (SEP-1865). One
 * AppBridge per app iframe: it answers `ui/initialize`, sends the tool's input
 * and result once the app says `ui/notifications/initialized`, passes the
 * app's `tools/call` and `resources/read` to callbacks the console provides
 * (they go through the console's own API and may ask the user), and refuses
 * every other method. Framework-free.
 *
 * Trust: a message counts only if `event.source` is the app's own window. The
 * origin of a sandboxed frame is "null", the same for every sandboxed frame,
 * so it proves nothing and is not looked at.
 */
import {
  DEFAULT_MAX_APP_MESSAGE_BYTES,
  isJsonObject,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_INVALID_PARAMS,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_METHOD_NOT_FOUND,
  type JsonObject,
  type JsonRpcId,
  parseAppMessage,
} from './messages.js';

export const APPS_PROTOCOL_VERSION = '2026-01-26';

/** An error a callback throws to give the app this code and message; any other error becomes "Internal error". */
export class AppBridgeError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'AppBridgeError';
  }
}

export interface AppBridgeOptions {
  /** The app's iframe (sandbox="allow-scripts", see frame.ts). */
  iframe: HTMLIFrameElement;
  /** Its contentWindow, read right after it was attached: the only sender listened to. */
  appWindow: Window;
  hostInfo: { name: string; version: string };
  /** `hostContext` of the `ui/initialize` result (theme, displayMode, toolInfo …). */
  hostContext?: JsonObject;
  /** The app's `tools/call` (params: name, arguments). Absent: the method is refused. */
  callTool?: (params: { name: string; arguments: JsonObject }) => Promise<JsonObject>;
  /** The app's `resources/read` (params: uri). Absent: refused. */
  readResource?: (params: { uri: string }) => Promise<JsonObject>;
  /** `ui/message`: the app asks to add a message to the conversation. Absent: refused. */
  onMessage?: (params: { role: string; content: unknown[] }) => void | Promise<void>;
  /** `ui/open-link`, with an http(s) URL only. Absent: refused. */
  onOpenLink?: (url: string) => void | Promise<void>;
  /** `ui/notifications/size-changed`: the app's content size in CSS pixels (capped). */
  onSizeChange?: (size: { width?: number; height?: number }) => void;
  /** `notifications/message`: a log line from the app. */
  onLog?: (params: { level: string; data: unknown; logger?: string }) => void;
  /** The app finished its handshake. */
  onInitialized?: (app: { appInfo?: JsonObject; appCapabilities?: JsonObject }) => void;
  /** A message that was refused (not JSON-RPC, too large, unknown method): for a console warning. */
  onRejected?: (why: string) => void;
  /** Largest message accepted (its JSON text), default 1 MiB. */
  maxMessageBytes?: number;
}

/** The largest size an app may ask for, in CSS pixels. */
export const MAX_APP_FRAME_SIZE = 10_000;
const TEARDOWN_TIMEOUT_MS = 2_000;

export class AppBridge {
  private initialized = false;
  private readonly queued: Array<{ method: string; params: JsonObject }> = [];
  private readonly pending = new Map<JsonRpcId, { resolve: () => void }>();
  private nextId = 1;
  private closed = false;
  private readonly listener = (event: MessageEvent) => this.receive(event);

  constructor(private readonly options: AppBridgeOptions) {
    if (options.iframe.contentWindow !== options.appWindow) throw new Error('AppBridge: appWindow is not the iframe’s contentWindow');
    window.addEventListener('message', this.listener);
  }

  /** `ui/notifications/tool-input`: the arguments the tool was called with. */
  sendToolInput(args: JsonObject): void {
    this.notify('ui/notifications/tool-input', { arguments: args });
  }

  /** `ui/notifications/tool-input-partial`: arguments still streaming. */
  sendToolInputPartial(args: JsonObject): void {
    this.notify('ui/notifications/tool-input-partial', { arguments: args });
  }

  /** `ui/notifications/tool-result`: the tool's CallToolResult. */
  sendToolResult(result: JsonObject): void {
    this.notify('ui/notifications/tool-result', result);
  }

  /** `ui/notifications/tool-cancelled`. */
  sendToolCancelled(reason?: string): void {
    this.notify('ui/notifications/tool-cancelled', reason === undefined ? {} : { reason });
  }

  /** `ui/notifications/host-context-changed` (theme, display mode …). */
  setHostContext(changed: JsonObject): void {
    this.notify('ui/notifications/host-context-changed', changed);
  }

  /** Asks the app to save its state (`ui/resource-teardown`), waits a bounded time, then closes the bridge. */
  async teardown(): Promise<void> {
    if (this.closed) return;
    if (this.initialized) {
      const id = `teardown-${this.nextId++}`;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.pending.set(id, { resolve });
        timer = setTimeout(resolve, TEARDOWN_TIMEOUT_MS);
        this.post({ jsonrpc: '2.0', id, method: 'ui/resource-teardown', params: {} });
      });
      clearTimeout(timer);
      this.pending.delete(id);
    }
    this.close();
  }

  /** Stops listening; nothing more is sent or answered. */
  close(): void {
    this.closed = true;
    window.removeEventListener('message', this.listener);
    for (const { resolve } of this.pending.values()) resolve();
    this.pending.clear();
  }

  private notify(method: string, params: JsonObject): void {
    if (this.closed) return;
    // The spec: nothing goes to the app before it said it is initialized.
    if (!this.initialized) this.queued.push({ method, params });
    else this.post({ jsonrpc: '2.0', method, params });
  }

  private post(message: JsonObject): void {
    if (this.closed) return;
    // A sandboxed frame's origin is opaque ("null"): "*" is the only target that reaches it.
    // The message goes to this one window; what it carries is the app's own data.
    this.options.appWindow.postMessage(message, '*');
  }

  private receive(event: MessageEvent): void {
    if (this.closed || event.source !== this.options.appWindow) return;
    const message = parseAppMessage(event.data, this.options.maxMessageBytes ?? DEFAULT_MAX_APP_MESSAGE_BYTES);
    switch (message.kind) {
      case 'invalid':
        this.options.onRejected?.(message.why);
        if (message.id !== undefined) this.replyError(message.id, JSONRPC_INVALID_REQUEST, `Invalid Request: ${message.why}`);
        return;
      case 'response':
        this.pending.get(message.id)?.resolve();
        return;
      case 'notification':
        this.onNotification(message.method, message.params);
        return;
      case 'request':
        void this.onRequest(message.id, message.method, message.params);
        return;
    }
  }

  private onNotification(method: string, params: JsonObject): void {
    const o = this.options;
    switch (method) {
      case 'ui/notifications/initialized': {
        if (this.initialized) return;
        this.initialized = true;
        for (const queued of this.queued.splice(0)) this.post({ jsonrpc: '2.0', ...queued });
        return;
      }
      case 'ui/notifications/size-changed': {
        const size: { width?: number; height?: number } = {};
        for (const key of ['width', 'height'] as const) {
          const value = params[key];
          if (typeof value === 'number' && Number.isFinite(value) && value >= 0) size[key] = Math.min(Math.ceil(value), MAX_APP_FRAME_SIZE);
        }
        o.onSizeChange?.(size);
        return;
      }
      case 'notifications/message': {
        if (typeof params.level === 'string')
          o.onLog?.({
            level: params.level.slice(0, 20),
            data: params.data,
            logger: typeof params.logger === 'string' ? params.logger.slice(0, 100) : undefined,
          });
        return;
      }
      default:
        o.onRejected?.(`notification ${method} is not accepted`);
    }
  }

  private async onRequest(id: JsonRpcId, method: string, params: JsonObject): Promise<void> {
    try {
      const result = await this.handle(method, params);
      if (result === undefined) this.replyError(id, JSONRPC_METHOD_NOT_FOUND, `Method not found: ${method}`);
      else this.reply(id, result);
    } catch (error) {
      if (error instanceof AppBridgeError) this.replyError(id, error.code, error.message);
      else this.replyError(id, JSONRPC_INTERNAL_ERROR, 'Internal error');
    }
  }

  /** The result, or undefined for a method the console does not offer. */
  private async handle(method: string, params: JsonObject): Promise<JsonObject | undefined> {
    const o = this.options;
    switch (method) {
      case 'ui/initialize':
        o.onInitialized?.({
          appInfo: isJsonObject(params.appInfo) ? params.appInfo : undefined,
          appCapabilities: isJsonObject(params.appCapabilities) ? params.appCapabilities : undefined,
        });
        return {
          protocolVersion: APPS_PROTOCOL_VERSION,
          hostInfo: { ...o.hostInfo },
          hostCapabilities: this.hostCapabilities(),
          hostContext: { displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web', ...o.hostContext },
        };
      case 'ping':
        return {};
      case 'ui/request-display-mode':
        // Only inline is offered: the answer is the mode the app stays in.
        return { mode: 'inline' };
      case 'tools/call': {
        if (!o.callTool) return undefined;
        const args = params.arguments ?? {};
        if (typeof params.name !== 'string' || params.name === '' || !isJsonObject(args))
          throw invalidParams('tools/call needs a name and an arguments object');
        return await o.callTool({ name: params.name, arguments: args });
      }
      case 'resources/read': {
        if (!o.readResource) return undefined;
        if (typeof params.uri !== 'string' || params.uri === '') throw invalidParams('resources/read needs a uri');
        return await o.readResource({ uri: params.uri });
      }
      case 'ui/message': {
        if (!o.onMessage) return undefined;
        if (params.role !== 'user' || !Array.isArray(params.content)) throw invalidParams('ui/message needs role "user" and a content array');
        await o.onMessage({ role: params.role, content: params.content });
        return {};
      }
      case 'ui/open-link': {
        if (!o.onOpenLink) return undefined;
        const url = typeof params.url === 'string' && URL.canParse(params.url) ? new URL(params.url) : undefined;
        if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalidParams('ui/open-link needs an http(s) url');
        await o.onOpenLink(url.href);
        return {};
      }
      default:
        return undefined;
    }
  }

  private hostCapabilities(): JsonObject {
    const o = this.options;
    const caps: JsonObject = {};
    if (o.onOpenLink) caps.openLinks = {};
    if (o.callTool) caps.serverTools = {};
    if (o.readResource) caps.serverResources = {};
    if (o.onLog) caps.logging = {};
    return caps;
  }

  private reply(id: JsonRpcId, result: JsonObject): void {
    this.post({ jsonrpc: '2.0', id, result });
  }

  private replyError(id: JsonRpcId, code: number, message: string): void {
    this.post({ jsonrpc: '2.0', id, error: { code, message } });
  }
}

function invalidParams(message: string): AppBridgeError {
  return new AppBridgeError(JSONRPC_INVALID_PARAMS, message);
}
