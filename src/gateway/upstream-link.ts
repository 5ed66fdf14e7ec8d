import { ToolClient } from '../client/client.js';
import type { InputRequestHandler } from '../client/inputs/types.js';
import type { LogMessage } from '../client/types.js';
import type { OpenedTransport } from './loaders.js';
import type { UpstreamState } from './types.js';

/** Waits between attempts to reach an upstream: doubling from the first, capped. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;

export interface LinkOptions {
  name: string;
  open: () => Promise<OpenedTransport>;
  connectTimeoutMs: number;
  timeoutMs: number;
  maxMessageBytes: number;
  warn: (message: string) => void;
  /** A list of the upstream changed (tools, prompts or resources): the mount lists it again. */
  onListChanged: (what: 'tools' | 'prompts' | 'resources') => void;
  onResourceUpdated: (uri: string) => void;
  onLog: (message: LogMessage) => void;
  /** What a legacy upstream's `roots/list` outside any call is answered (see rootsOutsideCalls). */
  roots: ReadonlyArray<{ uri: string; name?: string }>;
  /** A connect failure in the words the operator can act on (an OAuth upstream's: which login to run). */
  explain?: (err: unknown) => unknown;
  /** Connected (a new client: list everything again), or gone (with why). */
  onState: (state: UpstreamState, detail?: string) => void;
}

/**
 * One upstream's connection, kept alive: connect (within connectTimeoutMs), and when it fails or
 * the process dies, try again after a wait that doubles up to 30 s. While it is down, `client` is
 * undefined and calls answer at once that the upstream is unreachable, never waiting for it.
 */
export class UpstreamLink {
  client?: ToolClient;
  state: UpstreamState = 'connecting';
  lastError?: string;
  restarts = 0;
  /** When the next attempt to reach it starts (Date.now() time), while one waits. */
  retryAt?: number;
  private attempt = 0;
  private timer?: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly options: LinkOptions) {}

  start(): void {
    void this.connectOnce();
  }

  /** A call saw the connection fail: drop it and reconnect (once, however many calls saw it). */
  lost(client: ToolClient, why: string): void {
    if (this.client !== client || this.closing) return;
    this.client = undefined;
    this.markDown(why);
    void client.close({ graceMs: 500 }).catch(() => {});
    this.scheduleRetry();
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    this.state = 'closed';
    const client = this.client;
    this.client = undefined;
    await client?.close({ graceMs: 1_000 }).catch(() => {});
  }

  private async connectOnce(): Promise<void> {
    if (this.closing) return;
    this.state = 'connecting';
    this.retryAt = undefined;
    let opened: OpenedTransport | undefined;
    let client: ToolClient | undefined;
    try {
      opened = await this.options.open();
      client = new ToolClient({ transport: opened.transport }, this.clientOptions());
      await client.connect();
    } catch (err) {
      await opened?.transport.close({ graceMs: 200 }).catch(() => {});
      this.markDown(describe(this.options.explain ? this.options.explain(err) : err));
      this.scheduleRetry();
      return;
    }
    if (this.closing) {
      await client.close({ graceMs: 500 }).catch(() => {});
      return;
    }
    this.client = client;
    this.attempt = 0;
    this.state = 'up';
    this.lastError = undefined;
    opened.ended?.then(() => this.lost(client, 'its process exited'));
    this.options.onState('up');
  }

  private clientOptions(): ConstructorParameters<typeof ToolClient>[1] {
    const o = this.options;
    return {
      clientInfo: { name: 'toolwright-gateway', version: '0.1.0' },
      // Declared so that the upstream may ask; each call relays its questions to its own caller.
      inputCapabilities: ['elicitation', 'sampling', 'roots'],
      onInputRequest: rootsOutsideCalls(o.roots),
      timeoutMs: o.timeoutMs,
      connectTimeoutMs: o.connectTimeoutMs,
      probeTimeoutMs: Math.min(5_000, o.connectTimeoutMs),
      maxMessageBytes: o.maxMessageBytes,
      onWarning: o.warn,
      onToolsListChanged: () => o.onListChanged('tools'),
      onPromptsListChanged: () => o.onListChanged('prompts'),
      onResourcesListChanged: () => o.onListChanged('resources'),
      onResourceUpdated: (u) => o.onResourceUpdated(u.uri),
      onLog: o.onLog,
      logLevel: 'info',
    };
  }

  private markDown(why: string): void {
    this.state = 'down';
    this.lastError = why;
    this.options.onState('down', why);
  }

  private scheduleRetry(): void {
    if (this.closing) return;
    const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.attempt++);
    this.restarts++;
    this.retryAt = Date.now() + wait;
    this.timer = setTimeout(() => void this.connectOnce(), wait);
    this.timer.unref?.();
  }
}

/** A failure in one line, without the stack: what the operator and the client may read. */
export function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0].slice(0, 300);
}

/**
 * Answers what a legacy upstream asks outside any call (a question during one goes to that call's
 * client). `roots/list`: the gateway declared roots (each caller's own are relayed during its
 * calls), and client/roots.mdx gives -32601 only to a client that does not support roots, so it
 * answers with the roots configured for this upstream, by default none (an empty list: no
 * caller's roots are lent to a server asking on nobody's behalf). Elicitation and sampling need a
 * user, and there is none outside a call: refused with an error.
 */
function rootsOutsideCalls(roots: ReadonlyArray<{ uri: string; name?: string }>): InputRequestHandler {
  return (request) =>
    request.method === 'roots/list'
      ? Promise.resolve({ roots: roots.map((r) => ({ ...r })) })
      : Promise.reject(new Error(`${request.method} outside a call: no user to ask`));
}
