import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import {
  errorOutcome,
  jsonAttribute,
  McpAttr,
  metricAttributes,
  operationSpanName,
  requestAttributes,
  resultOutcome,
  type OperationFacts,
  type Outcome,
} from './attributes.js';
import { serverParent } from './context.js';
import { DEFAULT_MAX_RECORDED_CHARS, type TracingOptions } from './options.js';
import { durationHistogram, mcpTracer, telemetryActive, tracerProviderRegistered } from './providers.js';
import { recordedText } from '../jsonrpc/recorded.js';
import { taskLinks } from './task-links.js';

/** What the server knows of a request when its span starts. */
export interface ServerRequestFacts extends OperationFacts {
  /** The request's `params._meta`, as sent. */
  meta: Readonly<Record<string, unknown>> | undefined;
  /** HTTP request headers, lower-cased; absent on other transports. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The tool's arguments as they may be recorded (the server redacts what the audit trail would). */
  redactArguments?: (toolName: string, args: unknown) => unknown;
}

const CANCELLED: Outcome = { errorType: 'cancelled' };

/** Anything else a server throws is answered with -32603 (internal error). */
const serverFallback = (): Outcome => ({ errorType: '-32603', statusCode: '-32603' });

function endSpan(span: Span, outcome: Outcome): void {
  if (outcome.errorType !== undefined) {
    span.setAttribute(McpAttr.errorType, outcome.errorType);
    if (outcome.statusCode !== undefined) span.setAttribute(McpAttr.statusCode, outcome.statusCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
  }
  span.end();
}

/**
 * Runs `next` (the rest of the request's pipeline) inside a SERVER span
 * named and attributed by the MCP semantic conventions, records
 * `mcp.server.operation.duration`, and returns what `next` returned.
 * With neither a tracer nor a meter provider registered it is `next()`.
 * The span is active while `next` runs, so spans a tool starts are its children.
 */
export function traceServerRequest<R>(facts: () => ServerRequestFacts, options: TracingOptions, next: () => Promise<R>): Promise<R> {
  if (!telemetryActive('server')) return next();
  const started = performance.now();
  const request = facts();
  const attributes = requestAttributes(request);
  const parent = serverParent(request.meta, request.headers);
  const taskLink = taskLinks.linkFor(request.method, request.params);
  const links = taskLink ? [...(parent.links ?? []), taskLink] : parent.links;
  const span = mcpTracer().startSpan(
    operationSpanName(request.method, request.params, request.knownTarget),
    { kind: SpanKind.SERVER, attributes, links },
    parent.context,
  );
  const recording = span.isRecording();
  if (recording && options.recordArguments && request.method === 'tools/call') {
    const given = request.params?.arguments ?? {};
    const name = request.params?.name;
    const recorded = request.redactArguments && typeof name === 'string' ? request.redactArguments(name, given) : given;
    const args = jsonAttribute(recorded, options.maxRecordedChars ?? DEFAULT_MAX_RECORDED_CHARS);
    if (args !== undefined) span.setAttribute(McpAttr.toolArguments, args);
  }
  const finish = (outcome: Outcome): void => {
    if (recording) endSpan(span, outcome);
    durationHistogram('server')?.record((performance.now() - started) / 1000, metricAttributes(attributes, outcome));
  };
  let running: Promise<R>;
  try {
    running = context.with(trace.setSpan(parent.context, span), next);
  } catch (err) {
    running = Promise.reject(err);
  }
  return running.then(
    (result) => {
      // Nothing to send: the client cancelled the request (or went away).
      const outcome = result === undefined ? CANCELLED : resultOutcome(request.method, result);
      if (recording) taskLinks.remember(request.method, result, span.spanContext());
      if (recording && options.recordResults && request.method === 'tools/call' && outcome.errorType === undefined && result !== undefined) {
        const text = jsonAttribute(result, options.maxRecordedChars ?? DEFAULT_MAX_RECORDED_CHARS);
        if (text !== undefined) span.setAttribute(McpAttr.toolResult, text);
      }
      finish(outcome);
      return result;
    },
    (err: unknown) => {
      finish(errorOutcome(err, serverFallback));
      throw err;
    },
  );
}

/** Not in the MCP conventions (which have no gateway): toolwright's own namespace, as `toolwright.link`. */
export const UPSTREAM_ATTRIBUTE = 'toolwright.upstream';

/** Names the gateway upstream that serves the request on the active span: the request's SERVER span while its work runs. */
export function tagUpstream(upstream: string): void {
  if (tracerProviderRegistered()) trace.getActiveSpan()?.setAttribute(UPSTREAM_ATTRIBUTE, recordedText(upstream));
}
