import { AsyncLocalStorage } from 'node:async_hooks';
import { context, metrics, propagation, ROOT_CONTEXT, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { onTestFinished } from 'vitest';

/** What an SDK's Node context manager does, in a few lines: the active context follows async calls. */
class AsyncContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

/** Reads what the meter provider aggregated, on demand. */
class CollectingReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Registers an OpenTelemetry SDK for this test (tracer provider with an
 * in-memory exporter, meter provider with a collecting reader, W3C trace
 * context and baggage propagators, an async context manager) and removes it
 * when the test finishes.
 */
export function registerOtel() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncContextManager());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  onTestFinished(async () => {
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return {
    spans,
    /** The one finished span called `name`. */
    span(name: string): ReadableSpan {
      const found = spans().filter((s) => s.name === name);
      if (found.length !== 1)
        throw new Error(`expected one span named ${JSON.stringify(name)}, found ${found.length} among ${JSON.stringify(spans().map((s) => s.name))}`);
      return found[0];
    },
    /** The data points of histogram `name`: each one's attributes and count. */
    async histogram(name: string): Promise<Array<{ attributes: Record<string, unknown>; count: number; boundaries: number[] }>> {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name) as HistogramMetricData | undefined;
      return (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, count: p.value.count, boundaries: p.value.buckets.boundaries }));
    },
  };
}

export const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
