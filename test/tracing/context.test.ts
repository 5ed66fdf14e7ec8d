import { context, propagation, trace, ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { injectIntoMeta, serverParent } from '../../src/tracing/context.js';
import { registerOtel, traceparent } from '../helpers/otel.js';

const A = { traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: 'aaaaaaaaaaaaaaa1' };
const B = { traceId: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', spanId: 'bbbbbbbbbbbbbbb1' };
const parentOf = (ctx: ReturnType<typeof serverParent>) => trace.getSpanContext(ctx.context);

describe('the server span parent: _meta first, then HTTP headers', () => {
  it('takes the traceparent in _meta (tracestate and baggage with it)', () => {
    registerOtel();
    const parent = serverParent({ traceparent: traceparent(A.traceId, A.spanId), tracestate: 'vendor=x', baggage: 'user=alice' }, undefined);
    expect(parentOf(parent)).toMatchObject({ ...A, isRemote: true });
    expect(parentOf(parent)?.traceState?.get('vendor')).toBe('x');
    expect(propagation.getBaggage(parent.context)?.getEntry('user')?.value).toBe('alice');
    expect(parent.links).toBeUndefined();
  });

  it('takes the HTTP headers when _meta carries no trace context', () => {
    registerOtel();
    const parent = serverParent({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }, { traceparent: traceparent(B.traceId, B.spanId) });
    expect(parentOf(parent)).toMatchObject(B);
    expect(parent.links).toBeUndefined();
  });

  it('with both, _meta wins and the header context is a link', () => {
    registerOtel();
    const parent = serverParent({ traceparent: traceparent(A.traceId, A.spanId) }, { traceparent: traceparent(B.traceId, B.spanId) });
    expect(parentOf(parent)).toMatchObject(A);
    expect(parent.links?.map((l) => l.context)).toEqual([expect.objectContaining(B)]);
  });

  it('links the ambient span active where the request arrived', () => {
    registerOtel();
    const ambient = trace.getTracer('test').startSpan('HTTP POST');
    const parent = context.with(trace.setSpan(ROOT_CONTEXT, ambient), () => serverParent({ traceparent: traceparent(A.traceId, A.spanId) }, undefined));
    ambient.end();
    expect(parent.links?.map((l) => l.context.spanId)).toEqual([ambient.spanContext().spanId]);
  });

  it('ignores what is not trace context: non-string values, malformed traceparents, inherited keys', () => {
    registerOtel();
    for (const meta of [
      { traceparent: 42 },
      { traceparent: '00-zz-yy-01' },
      { traceparent: `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01` },
      JSON.parse('{"__proto__": {"traceparent": "00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-aaaaaaaaaaaaaaa1-01"}}'),
    ]) {
      const parent = serverParent(meta, undefined);
      expect(parentOf(parent)).toBeUndefined();
    }
  });

  it('does nothing without a registered propagator (no SDK)', () => {
    const parent = serverParent({ traceparent: traceparent(A.traceId, A.spanId) }, { traceparent: traceparent(B.traceId, B.spanId) });
    expect(parentOf(parent)).toBeUndefined();
  });
});

describe('injecting the client span into _meta', () => {
  it('adds traceparent (and baggage) beside the keys already there, without changing them', () => {
    registerOtel();
    const span = trace.getTracer('test').startSpan('tools/call x');
    const ctx = propagation.setBaggage(trace.setSpan(ROOT_CONTEXT, span), propagation.createBaggage({ tenant: { value: 'acme' } }));
    const given = { progressToken: 1 };
    const meta = injectIntoMeta(ctx, given);
    span.end();
    expect(meta).toEqual({ progressToken: 1, traceparent: traceparent(span.spanContext().traceId, span.spanContext().spanId), baggage: 'tenant=acme' });
    expect(given).toEqual({ progressToken: 1 });
  });

  it('returns the same _meta when no propagator is registered', () => {
    const given = { progressToken: 1 };
    expect(injectIntoMeta(ROOT_CONTEXT, given)).toBe(given);
  });
});
