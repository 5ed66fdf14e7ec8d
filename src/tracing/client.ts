import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  errorOutcome,
  McpAttr,
  metricAttributes,
  operationSpanName,
  requestAttributes,
  resultOutcome,
  type OperationFacts,
  type Outcome,
} from './attributes.js';
import { injectIntoMeta } from './context.js';
import { durationHistogram, mcpTracer, telemetryActive } from './providers.js';

/** A client-side failure without a JSON-RPC code: a timeout, a cancellation, a broken connection. */
function clientFallback(err: unknown): Outcome {
  const name = (err as { name?: unknown } | null)?.name;
  const message = err instanceof Error ? err.message : undefined;
  if (name === 'TimeoutError') return { errorType: 'timeout', message };
  if (name === 'CancelledError') return { errorType: 'cancelled', message };
  return { errorType: typeof name === 'string' && name !== 'Error' ? name : '_OTHER', message };
}

/**
 * Runs `send` inside a CLIENT span (the MCP semantic conventions' name and
 * attributes) and records `mcp.client.operation.duration`. `send` gets the
 * `_meta` to put on the request: `meta` plus the span's trace context
 * (`traceparent`, `tracestate`, `baggage` through the registered
 * propagators), so the server's span becomes the client span's child.
 * With neither a tracer nor a meter provider registered it is `send(meta)`.
 */
export function traceClientRequest<R>(
  facts: () => OperationFacts,
  meta: Record<string, unknown> | undefined,
  send: (meta: Record<string, unknown> | undefined) => Promise<R>,
): Promise<R> {
  if (!telemetryActive('client')) return send(meta);
  const started = performance.now();
  const request = facts();
  const attributes = requestAttributes(request);
  const span = mcpTracer().startSpan(operationSpanName(request.method, request.params), { kind: SpanKind.CLIENT, attributes });
  const active = trace.setSpan(context.active(), span);
  const finish = (outcome: Outcome): void => {
    if (outcome.errorType !== undefined) {
      span.setAttribute(McpAttr.errorType, outcome.errorType);
      if (outcome.statusCode !== undefined) span.setAttribute(McpAttr.statusCode, outcome.statusCode);
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
    }
    span.end();
    durationHistogram('client')?.record((performance.now() - started) / 1000, metricAttributes(attributes, outcome));
  };
  let running: Promise<R>;
  try {
    running = context.with(active, send, undefined, injectIntoMeta(active, meta));
  } catch (err) {
    running = Promise.reject(err);
  }
  return running.then(
    (result) => {
      finish(resultOutcome(request.method, result));
      return result;
    },
    (err: unknown) => {
      finish(errorOutcome(err, clientFallback));
      throw err;
    },
  );
}
