import { context, propagation, ROOT_CONTEXT, trace, type Context, type Link, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';

type Carrier = Readonly<Record<string, unknown>>;
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Reads trace context from a request's `params._meta`: own string values
 * only (the object came off the wire; `__proto__`-style keys find nothing).
 * The keys are unprefixed, as SEP-414 and the conventions say: `traceparent`,
 * `tracestate`, `baggage`.
 */
export const metaGetter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    if (!Object.hasOwn(carrier, key)) return undefined;
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** Writes trace context into an outgoing request's `params._meta`. */
export const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** HTTP request headers, lower-cased by node:http. */
const headerGetter: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const name = key.toLowerCase();
    return Object.hasOwn(carrier, name) ? carrier[name] : undefined;
  },
};

/** The parent a server span takes and the links it keeps to the contexts it did not take. */
export interface ServerParent {
  context: Context;
  links: Link[] | undefined;
}

function linkTo(ctx: Context, links: Link[]): void {
  const spanContext = trace.getSpanContext(ctx);
  if (
    spanContext &&
    trace.isSpanContextValid(spanContext) &&
    !links.some((link) => link.context.spanId === spanContext.spanId && link.context.traceId === spanContext.traceId)
  ) {
    links.push({ context: spanContext });
  }
}

function hasSpan(ctx: Context): boolean {
  const spanContext = trace.getSpanContext(ctx);
  return spanContext !== undefined && trace.isSpanContextValid(spanContext);
}

/**
 * The parent of a server span (semantic conventions "Context propagation"):
 * the context in `params._meta`; when `_meta` carries none, the HTTP
 * request's `traceparent` header. When both carry one, `_meta` wins and the
 * header's becomes a link; an ambient context (an HTTP instrumentation's
 * span, active where the request arrived) is a link too. The parent is
 * remote: the span starts a local subtree of the client's trace.
 */
export function serverParent(meta: Carrier | undefined, headers: Headers | undefined): ServerParent {
  const fromMeta = meta ? propagation.extract(ROOT_CONTEXT, meta, metaGetter) : undefined;
  const fromHeaders = headers ? propagation.extract(ROOT_CONTEXT, headers, headerGetter) : undefined;
  const metaHasSpan = fromMeta !== undefined && hasSpan(fromMeta);
  const parent = metaHasSpan ? fromMeta : fromHeaders && hasSpan(fromHeaders) ? fromHeaders : (fromMeta ?? fromHeaders ?? ROOT_CONTEXT);
  const links: Link[] = [];
  if (metaHasSpan && fromHeaders) linkTo(fromHeaders, links);
  const ambient = context.active();
  if (ambient !== ROOT_CONTEXT && ambient !== parent) linkTo(ambient, links);
  // A link to the parent itself says nothing.
  const parentSpan = trace.getSpanContext(parent);
  const kept = parentSpan ? links.filter((link) => link.context.spanId !== parentSpan.spanId) : links;
  return { context: parent, links: kept.length ? kept : undefined };
}

/**
 * The `_meta` an outgoing request carries: `meta` plus the trace context of
 * `ctx` through the registered propagators (nothing when none is registered).
 * Returns `meta` itself when nothing was added.
 */
export function injectIntoMeta(ctx: Context, meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const carrier: Record<string, unknown> = {};
  propagation.inject(ctx, carrier, metaSetter);
  for (const _ in carrier) return { ...meta, ...carrier };
  return meta;
}
