import type { TracingOptions } from './options.js';
import { traceServerRequest, type ServerRequestFacts } from './server.js';

/**
 * What the tracing middleware reads of a request's middleware context
 * (server/middleware.ts MiddlewareContext; named structurally so this layer
 * does not import the server's).
 */
export interface TracedRequest {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly era: 'modern' | 'legacy';
  readonly meta: Record<string, unknown> | undefined;
  readonly requestId: string | number | null;
  readonly protocolVersion: string | undefined;
  readonly transport: string;
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  readonly remoteAddress?: string;
  readonly remotePort?: number;
}

/** What the server tells the tracing middleware of its catalog. */
export interface TracedCatalog {
  /** Whether a tool (tools/call) or prompt (prompts/get) of that name exists. */
  knownTarget(method: string, name: string): boolean;
  /** A tool's arguments with what the audit trail redacts redacted. */
  redactArguments(toolName: string, args: unknown): unknown;
}

function factsOf(ctx: TracedRequest, catalog: TracedCatalog | undefined): ServerRequestFacts {
  const headers = ctx.headers;
  // A legacy HTTP request reached here with a session the server knows (unknown ids are refused before).
  const session = ctx.era === 'legacy' ? headers?.['mcp-session-id'] : undefined;
  return {
    method: ctx.method,
    params: ctx.params,
    requestId: ctx.requestId,
    protocolVersion: ctx.protocolVersion,
    sessionId: typeof session === 'string' ? session : undefined,
    transport: ctx.transport,
    clientAddress: ctx.remoteAddress,
    clientPort: ctx.remotePort,
    meta: ctx.meta,
    headers,
    knownTarget: catalog?.knownTarget,
    redactArguments: catalog?.redactArguments,
  };
}

/**
 * The server's tracing middleware: a SERVER span around the rest of the
 * request and its `mcp.server.operation.duration`, by the MCP semantic
 * conventions (docs/tracing.md). With no OpenTelemetry SDK registered it
 * calls `next()` and nothing else.
 */
export function tracing(options: TracingOptions = {}, catalog?: TracedCatalog) {
  return <R>(ctx: TracedRequest, next: () => Promise<R>): Promise<R> => traceServerRequest(() => factsOf(ctx, catalog), options, next);
}
