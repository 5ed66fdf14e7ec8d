import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { META, type ClientCapabilities, type Implementation, type LogLevel } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { traceClientRequest } from '../tracing/client-lazy.js';
import type { OperationFacts } from '../tracing/attributes.js';
import { withDeadline } from './deadline.js';
import { CancelledError, TimeoutError } from './errors.js';
import { unwrapResponse } from './results.js';
import type { ClientTransport, WireContext } from './transport.js';

export interface RequestOptions {
  /** The era framing; defaults to the session's. */
  wire?: WireContext;
  signal?: AbortSignal;
  /** The time allowed (the session's default when absent); the TimeoutError names it. */
  timeoutMs?: number;
  /** When the time allowed ends (ms since the epoch), for a request that is one step of a longer exchange. */
  deadline?: number;
  /** Let an `input_required` result through to the caller, who answers it (mrtr.mdx). */
  acceptInputRequired?: boolean;
  /** Let a `task` result (a CreateTaskResult) through to the caller, who follows it (tasks extension). */
  acceptTask?: boolean;
  /** Extensions declared in this request's client capabilities only (modern era; the tasks extension is declared per request). */
  extensions?: Readonly<Record<string, unknown>>;
  /** This request's client capabilities instead of the session's (modern era; a call that narrows them). */
  capabilities?: ClientCapabilities;
  /** Ask for progress: the request carries `_meta.progressToken`. */
  progress?: boolean;
  onNotification?: (notification: JsonRpcNotification) => void;
  headers?: Record<string, string>;
  /** Extra `_meta` keys (the protocol's own keys win). */
  meta?: Record<string, unknown>;
  /** Whether giving up sends `notifications/cancelled` where the transport needs it (not for the era probe). */
  cancellable?: boolean;
  /** Told the request's id before it is sent: a legacy server's questions name the request they belong to by it. */
  onRequestId?: (id: number) => void;
}

interface SessionIdentity {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  logLevel?: LogLevel;
}

/**
 * Sends one request the way the negotiated era wants it: the modern `_meta`
 * envelope on every request, a deadline on every request, and cancellation
 * by the transport's rule when the deadline passes or the caller aborts
 * (cancellation.mdx: stdio sends `notifications/cancelled`; modern HTTP
 * closes the stream; legacy HTTP does both).
 */
export class ClientSession {
  wire: WireContext = { era: 'modern' };
  private nextId = 1;

  constructor(
    readonly transport: ClientTransport,
    readonly identity: SessionIdentity,
    private readonly defaultTimeoutMs: number,
  ) {}

  async request(method: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    // Already aborted or out of time: nothing is sent, so there is nothing to cancel either.
    if (options.signal?.aborted) throw new CancelledError(method, options.signal.reason);
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const now = Date.now();
    const deadline = options.deadline ?? now + timeoutMs;
    if (deadline <= now) throw new TimeoutError(method, timeoutMs);
    const id = this.nextId++;
    options.onRequestId?.(id);
    const wire = options.wire ?? this.wire;
    // One CLIENT span per request, its trace context carried in _meta (a no-op when no OpenTelemetry SDK is registered).
    return traceClientRequest(
      () => this.traceFacts(method, params, id, wire),
      this.metaFor(wire, options, id),
      (meta) => this.send(method, meta ? { ...params, _meta: meta } : params, id, wire, deadline, timeoutMs, options),
    );
  }

  private traceFacts(method: string, params: Record<string, unknown>, id: number, wire: WireContext): OperationFacts {
    const transport = this.transport;
    return {
      method,
      params,
      requestId: id,
      protocolVersion: wire.protocolVersion,
      sessionId: wire.era === 'legacy' ? transport.legacySessionId : undefined,
      transport: transport.kind,
      serverAddress: transport.serverAddress?.host,
      serverPort: transport.serverAddress?.port,
    };
  }

  private send(
    method: string,
    body: Record<string, unknown>,
    id: number,
    wire: WireContext,
    deadline: number,
    timeoutMs: number,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    return withDeadline(method, { deadline, timeoutMs, signal: options.signal }, async (signal) => {
      try {
        const response = await this.transport.request(
          { jsonrpc: '2.0', id, method, params: body },
          {
            wire,
            signal,
            progressToken: options.progress ? id : undefined,
            onNotification: options.onNotification,
            headers: options.headers,
          },
        );
        return unwrapResponse(method, response.message, response.httpStatus, options.acceptInputRequired, options.acceptTask);
      } catch (err) {
        // Given up on (not failed by the server or the connection): tell the server it can stop.
        if (signal.aborted && err === signal.reason && options.cancellable !== false) {
          void this.cancel(id, wire, err instanceof TimeoutError ? 'timed out' : 'cancelled by the caller');
        }
        throw err;
      }
    });
  }

  async notify(method: string, params?: Record<string, unknown>, wire: WireContext = this.wire): Promise<void> {
    await this.transport.notify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }, wire);
  }

  /** On modern HTTP closing the stream was the cancellation; everywhere else the server needs to be told. */
  private async cancel(id: number, wire: WireContext, reason: string): Promise<void> {
    if (this.transport.kind === 'http' && wire.era === 'modern') return;
    try {
      await this.notify(Method.cancelled, { requestId: id, reason }, wire);
    } catch {
      // The connection may be gone; there is nothing left to cancel then.
    }
  }

  private metaFor(wire: WireContext, options: RequestOptions, id: number): Record<string, unknown> | undefined {
    const meta: Record<string, unknown> = { ...options.meta };
    if (options.progress) meta.progressToken = id;
    if (wire.era === 'modern') {
      meta[META.protocolVersion] = wire.protocolVersion;
      const caps = options.capabilities ?? this.identity.capabilities;
      meta[META.clientCapabilities] = options.extensions
        ? { ...caps, extensions: { ...(caps as { extensions?: object }).extensions, ...options.extensions } }
        : caps;
      meta[META.clientInfo] = this.identity.clientInfo;
      if (this.identity.logLevel) meta[META.logLevel] = this.identity.logLevel;
    }
    return Object.keys(meta).length ? meta : undefined;
  }
}
