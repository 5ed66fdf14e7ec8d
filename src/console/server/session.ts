import { ToolClient } from '../../client/client.js';
import type { InputRequest, InputResult } from '../../client/inputs/types.js';
import type { ClientTarget, ListedTool, ToolClientOptions } from '../../client/types.js';
import { connectClient } from '../../client/connect/connect.js';
import { resolveTarget, type ClientCommandOptions } from '../../client/connect/target.js';
import { sanitize } from '../../io/sanitize.js';
import type { ConnectionStatus, ConnectRequest, RootEntry } from '../api-types.js';
import { APPS_CAPABILITY } from './apps-capability.js';
import { ApiError, type JsonLineStream } from './http-io.js';
import { randomId } from './random-id.js';
import { ConsoleDebugger } from './debugger-state.js';
import type { ConsoleTarget } from './target.js';

export type { ConsoleTarget };
import { InputRejectedError } from '../../client/errors.js';

/** A question from the server waiting for the person at the page. */
interface PendingInput {
  resolve: (result: InputResult) => void;
  reject: (err: Error) => void;
}

/**
 * The console's one connection to a server, through toolwright's client (the same code
 * `toolwright list`/`call` use: stored OAuth tokens, servers files, eras), and what the page
 * hears of it: list changes, resource updates, log messages and the server's questions, as
 * events on every open `/api/events` stream.
 */
export class ConsoleSession {
  private current?: { client: ToolClient; label: string; target?: ClientTarget };
  private readonly streams = new Set<JsonLineStream>();
  private readonly pendingInputs = new Map<string, PendingInput>();
  private readonly warnings: string[] = [];
  /** The wire history, log messages and roots (the protocol debugger's screens). */
  readonly debugging = new ConsoleDebugger((event) => this.broadcast(event));
  private connecting?: Promise<void>;
  /** Why the last connect failed, until the next one succeeds: the page shows it (and the doctor). */
  private lastError?: { message: string; target: string };

  constructor(private readonly options: { version: string; defaultTarget?: ConsoleTarget }) {}

  /** toolwright's version, as the console's clients introduce themselves. */
  get version(): string {
    return this.options.version;
  }

  get client(): ToolClient | undefined {
    return this.current?.client;
  }

  /** The client, or a 409 telling the page to connect first. */
  requireClient(): ToolClient {
    const client = this.current?.client;
    if (!client) throw new ApiError(409, 'not connected to a server: connect first');
    return client;
  }

  /** The connected server's tool of that name (the client's cached list), or a 404. */
  async listedTool(name: string): Promise<ListedTool> {
    const tool = (await this.requireClient().listTools()).find((t) => t.name === name);
    if (!tool) throw new ApiError(404, `no tool named ${JSON.stringify(name.slice(0, 100))} on this server`);
    return tool;
  }

  get defaultTarget(): ConsoleTarget | undefined {
    return this.options.defaultTarget;
  }

  status(): ConnectionStatus {
    const client = this.current?.client;
    if (!client) return { connected: false, connecting: this.connecting !== undefined, ...(this.lastError ? { lastError: this.lastError } : {}) };
    return {
      connected: true,
      target: this.current?.label,
      era: client.era,
      protocolVersion: client.protocolVersion,
      serverInfo: client.serverInfo,
      capabilities: client.capabilities,
      instructions: client.instructions,
      warnings: this.warnings.slice(-20),
    };
  }

  /** Connects (closing any earlier connection first); one connect at a time. */
  async connect(target: ConsoleTarget): Promise<void> {
    while (this.connecting) await this.connecting.catch(() => {});
    const attempt = this.open(target);
    this.connecting = attempt;
    this.lastError = undefined;
    try {
      await attempt;
    } catch (err) {
      this.lastError = { message: err instanceof Error ? err.message : String(err), target: describeTarget(target) };
      this.connecting = undefined;
      this.broadcast({ type: 'connection', status: this.status() });
      throw err;
    } finally {
      this.connecting = undefined;
    }
  }

  private async open(target: ConsoleTarget): Promise<void> {
    await this.disconnect();
    this.warnings.length = 0;
    this.debugging.connecting(target);
    if (target.kind === 'transport') {
      this.adopt(await ToolClient.connect({ transport: target.transport() }, this.clientOptions()), target.label);
      return;
    }
    const { resolved, options, label } =
      target.kind === 'command-line'
        ? { resolved: resolveTarget(target.operand, target.command, target.options), options: target.options, label: describeTarget(target) }
        : this.resolve(target.request);
    const io = { stderr: (text: string) => this.warn(text) };
    const client = await connectClient(resolved, options, io, this.options.version, this.clientOptions());
    this.adopt(client, label, resolved);
  }

  /** How the console's client is set up: the server's questions and events go to the page. */
  private clientOptions(): ToolClientOptions {
    return {
      clientInfo: { name: 'toolwright-console', version: this.options.version },
      // Sampling is answered by the person in a form, roots from the list they keep (roots.mdx: listChanged is sent on edit).
      capabilities: { ...APPS_CAPABILITY, roots: { listChanged: true } },
      inputCapabilities: ['elicitation', 'sampling', 'roots'],
      onInputRequest: (request) => this.ask(request),
      onWireMessage: (direction, message) => this.debugging.wire(direction, message),
      onToolsListChanged: () => this.broadcast({ type: 'tools-changed' }),
      onPromptsListChanged: () => this.broadcast({ type: 'prompts-changed' }),
      onResourcesListChanged: () => this.broadcast({ type: 'resources-changed' }),
      onResourceUpdated: (update) => this.broadcast({ type: 'resource-updated', uri: update.uri }),
      onLog: (message) => this.debugging.log(message),
      onWarning: (message) => this.warn(message),
    };
  }

  private adopt(client: ToolClient, label: string, target?: ClientTarget): void {
    this.current = { client, label, ...(target ? { target } : {}) };
    this.broadcast({ type: 'connection', status: this.status() });
  }

  /** The page's request as the command line would take it: the same checks, the same messages. */
  resolve(request: ConnectRequest): { resolved: ClientTarget; options: ClientCommandOptions; label: string } {
    const options: ClientCommandOptions = {
      era: request.era ?? 'auto',
      header: Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
      env: Object.entries(request.env ?? {}).map(([name, value]) => `${name}=${value}`),
      ...(request.cwd ? { cwd: request.cwd } : {}),
    };
    const given = [request.url, request.command, request.server].filter((v) => v !== undefined && v !== '');
    if (given.length !== 1) throw new ApiError(400, 'give exactly one of a server URL, a command, or a named server');
    const command = request.command ? [request.command, ...(request.args ?? [])] : [];
    const operand = request.server ? `@${request.server}` : request.url;
    const resolved = resolveTarget(operand, command, options);
    return { resolved, options, label: describeTarget({ kind: 'request', request }) };
  }

  async disconnect(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    for (const [id, pending] of this.pendingInputs) {
      this.pendingInputs.delete(id);
      pending.reject(new Error('the console disconnected'));
    }
    if (current) {
      await current.client.close().catch(() => {});
      this.broadcast({ type: 'connection', status: this.status() });
    }
  }

  /** Opens an events stream for the page; it starts with the connection's status. */
  listen(stream: JsonLineStream): void {
    this.streams.add(stream);
    stream.onClose(() => this.streams.delete(stream));
    stream.write({ type: 'connection', status: this.status() });
  }

  broadcast(event: Record<string, unknown>): void {
    for (const stream of this.streams) stream.write(event);
  }

  /**
   * Hands a question from the server to the page and waits for its answer (`POST /api/input`).
   * `deliver` writes the question where the page will see it: the call's own stream, or every
   * events stream for questions that name no call.
   */
  ask(request: InputRequest, deliver: (event: Record<string, unknown>) => void = (e) => this.broadcast(e)): Promise<InputResult> {
    // The roots are the list the person keeps on the Roots screen: nobody is asked.
    if (request.method === 'roots/list') return Promise.resolve(this.debugging.rootsAnswer());
    const id = randomId();
    return new Promise<InputResult>((resolve, reject) => {
      const settle = () => {
        this.pendingInputs.delete(id);
        deliver({ type: 'input-withdrawn', id });
      };
      this.pendingInputs.set(id, {
        resolve: (result) => {
          this.pendingInputs.delete(id);
          resolve(result);
        },
        reject: (err) => {
          this.pendingInputs.delete(id);
          reject(err);
        },
      });
      request.signal.addEventListener('abort', () => {
        if (!this.pendingInputs.has(id)) return;
        settle();
        reject(new Error('the question was withdrawn'));
      });
      deliver({ type: 'input', id, method: request.method, params: request.params, ...(request.toolName ? { toolName: request.toolName } : {}) });
    });
  }

  /** The page's answer to a question; false when no such question waits (answered or withdrawn). */
  answer(id: string, result: InputResult): boolean {
    const pending = this.pendingInputs.get(id);
    if (!pending) return false;
    pending.resolve(result);
    return true;
  }

  /** The person rejected the question (a sampling request): the server hears so (InputRejectedError). */
  reject(id: string): boolean {
    const pending = this.pendingInputs.get(id);
    if (!pending) return false;
    pending.reject(new InputRejectedError('the person at the console rejected the request'));
    return true;
  }

  /** The roots the person keeps, replaced; a legacy server that may ask is told they changed. */
  async setRoots(roots: unknown): Promise<{ roots: RootEntry[]; notified: boolean }> {
    const kept = this.debugging.setRoots(roots);
    const client = this.current?.client;
    return { roots: kept, notified: client ? await client.notifyRootsChanged() : false };
  }

  private warn(text: string): void {
    const line = sanitize(text.trim()).slice(0, 500);
    if (!line) return;
    this.warnings.push(line);
    if (this.warnings.length > 50) this.warnings.shift();
    this.broadcast({ type: 'warning', message: line });
  }

  async close(): Promise<void> {
    await this.disconnect();
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }
}

/** A target as the page shows it: a URL, a command line, or `@name`. */
function describeTarget(target: ConsoleTarget): string {
  if (target.kind === 'transport') return target.label;
  if (target.kind === 'command-line') return target.operand ?? target.command.join(' ');
  const { url, server, command, args } = target.request;
  return server ? `@${server}` : (url ?? [command, ...(args ?? [])].join(' '));
}
