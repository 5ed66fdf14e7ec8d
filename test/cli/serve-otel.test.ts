import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openTelemetryRequested } from '../../src/cli/otel.js';
import { lifecycleTools, startHttpServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';
import { MODERN, modernMeta } from '../helpers/wire.js';

/** A local OTLP/HTTP receiver: keeps every JSON body POSTed to it, by path. */
async function otlpReceiver() {
  const bodies: Array<{ path: string; body: any }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      try {
        bodies.push({ path: req.url ?? '', body: JSON.parse(text) });
      } catch {
        bodies.push({ path: req.url ?? '', body: text });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const spans = () =>
    bodies
      .filter((b) => b.path === '/v1/traces')
      .flatMap((b) =>
        b.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((span: any) => ({ ...span, resource: rs.resource })))),
      );
  const metricNames = () =>
    bodies
      .filter((b) => b.path === '/v1/metrics')
      .flatMap((b) => b.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((sm: any) => sm.metrics.map((m: any) => m.name))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, metricNames };
}

const attribute = (span: any, key: string) => {
  const value = span.attributes.find((a: any) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

describe('toolwright serve with the OpenTelemetry environment', () => {
  it('exports a SERVER span per call to the OTLP endpoint (http/json), child of the traceparent in _meta, and flushes it on shutdown', async () => {
    const receiver = await otlpReceiver();
    const serve = await startHttpServe(['--tools', lifecycleTools], {
      cwd: tempDir('toolwright-otel-'),
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'otel-serve-test',
        OTEL_LOGS_EXPORTER: 'none',
        TOOLWRIGHT_AUDIT_DIR: tempDir('toolwright-otel-audit-'),
      },
    });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpanId = '00f067aa0ba902b7';
    const response = await fetch(serve.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'sleep',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'sleep', arguments: { ms: 1 }, _meta: modernMeta({ traceparent: `00-${traceId}-${parentSpanId}-01` }) },
      }),
    });
    expect((await response.json()).result.content[0].text).toBe('slept 1 ms');
    serve.child.kill('SIGTERM');
    expect(await serve.exit).toEqual({ code: 0, signal: null });
    // Shutdown flushed the batch: no waiting on the exporter's schedule.
    const span = receiver.spans().find((s) => s.name === 'tools/call sleep');
    expect(span).toMatchObject({ traceId, parentSpanId, kind: 2 });
    expect(attribute(span, 'mcp.method.name')).toBe('tools/call');
    expect(attribute(span, 'gen_ai.tool.name')).toBe('sleep');
    expect(attribute(span, 'jsonrpc.request.id')).toBe('7');
    expect(attribute(span, 'network.transport')).toBe('tcp');
    expect(span.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'otel-serve-test' } });
    expect(receiver.metricNames()).toContain('mcp.server.operation.duration');
  });
});

/** A collector that is there and never answers: it accepts each connection and reads nothing back. */
async function blackholeCollector() {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => sockets.size };
}

describe('shutdown with a collector that never answers', () => {
  it('exits within the documented 5 s of SIGTERM, saying the last spans may be lost', async () => {
    const collector = await blackholeCollector();
    const serve = await startHttpServe(['--tools', lifecycleTools], {
      cwd: tempDir('toolwright-otel-'),
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_LOGS_EXPORTER: 'none',
        TOOLWRIGHT_AUDIT_DIR: tempDir('toolwright-otel-audit-'),
      },
    });
    // A span is waiting in the batch, so the shutdown has something to flush.
    expect((await (await serve.call('sleep', { ms: 1 })).json()).result.content[0].text).toBe('slept 1 ms');
    const signalled = performance.now();
    serve.child.kill('SIGTERM');
    expect(await serve.exit).toEqual({ code: 0, signal: null });
    // The documented bound is 5 s; the margin is for a busy machine starting and stopping a process, not a speed target.
    expect(performance.now() - signalled).toBeLessThan(6_500);
    expect(collector.connections()).toBeGreaterThan(0);
    expect(serve.stderr()).toMatch(/OpenTelemetry did not finish exporting within \d+ ms; the last spans may be lost/);
  }, 30_000);
});

describe('when the environment asks for OpenTelemetry', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'none, otlp' }, true],
    [{ OTEL_SERVICE_NAME: 'only-a-name' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
  ])('%j → %s', (env, expected) => {
    expect(openTelemetryRequested(env)).toBe(expected);
  });
});
