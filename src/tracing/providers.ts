import { createNoopMeter, metrics, ProxyTracerProvider, trace, type Histogram, type Meter, type MeterProvider, type Tracer } from '@opentelemetry/api';

/** The name instrumentation scopes carry (spans' and metrics' `otel.scope.name`). */
export const INSTRUMENTATION_SCOPE = 'toolwright';

// What the API hands out when the application registered nothing: the
// no-op tracer provider behind the global proxy, and the no-op meter.
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NOOP_METER = createNoopMeter().constructor;

/**
 * Whether some tracer provider is registered. The global proxy delegates to
 * a no-op until one is; asking is two property reads, so the middleware can
 * skip everything (no span, no context, no attributes) when nothing listens.
 * A provider from another copy of the API counts as registered.
 */
export function tracerProviderRegistered(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_TRACER_PROVIDER;
}

/** The tracer of the global provider, asked for once per provider (a provider registered late is picked up). */
let tracer: Tracer | undefined;
let tracerFrom: unknown;
export function mcpTracer(): Tracer {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  if (tracer === undefined || tracerFrom !== delegate) {
    tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
    tracerFrom = delegate;
  }
  return tracer;
}

/**
 * Bucket boundaries (seconds) the conventions advise for both
 * `mcp.*.operation.duration` histograms.
 */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

export type Side = 'server' | 'client';

interface Instruments {
  provider: MeterProvider;
  noop?: boolean;
  server?: Histogram;
  client?: Histogram;
}

let instruments: Instruments | undefined;

/**
 * The side's duration histogram, or undefined when no meter provider is
 * registered (the metrics API has no proxy: a meter taken before
 * registration stays a no-op, so the instruments follow the provider).
 */
export function durationHistogram(side: Side): Histogram | undefined {
  const provider = metrics.getMeterProvider();
  if (instruments?.provider !== provider) instruments = { provider };
  if (instruments.noop) return undefined;
  const held = instruments[side];
  if (held) return held;
  const meter: Meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  if (meter instanceof NOOP_METER) {
    instruments.noop = true;
    return undefined;
  }
  const histogram = meter.createHistogram(`mcp.${side}.operation.duration`, {
    unit: 's',
    description:
      side === 'server'
        ? 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.'
        : 'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  instruments[side] = histogram;
  return histogram;
}

/** Whether anything would record: a tracer provider or a meter provider is registered. */
export function telemetryActive(side: Side): boolean {
  return tracerProviderRegistered() || durationHistogram(side) !== undefined;
}
