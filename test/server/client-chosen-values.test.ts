import { describe, expect, it } from 'vitest';
import { MemoryAuditSink } from '../../src/audit/memory-sink.js';
import { defineResource, defineResourceTemplate, ToolServer } from '../../src/index.js';
import { MAX_RECORDED_CHARS } from '../../src/jsonrpc/recorded.js';
import { requestLogging } from '../../src/middleware/request-logging.js';
import { MessageStreamSession } from '../../src/transports/message-stream.js';
import { registerOtel } from '../helpers/otel.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

type Msg = Record<string, any>;

/** Long enough that keeping it whole would show, short enough that the test stays quick. */
const HUGE = 2 * 1024 * 1024;

function serverWithSinks() {
  const audit = new MemoryAuditSink();
  const lines: Array<Record<string, unknown>> = [];
  const log = memoryLogger();
  const server = new ToolServer({
    logger: log.logger,
    audit,
    tools: [{ name: 'echo', description: 'echo', inputSchema: { type: 'object' }, handler: () => 'ok' }],
    resources: [defineResource({ uri: 'docs://a', name: 'a', read: () => 'A' })],
    // Answers with contents that are not contents: the server logs the URI it was asked for.
    resourceTemplates: [defineResourceTemplate({ uriTemplate: 'broken://{+rest}', name: 'broken', read: () => ({ not: 'contents' }) as never })],
  });
  server.use(requestLogging({ logger: { info: (fields) => lines.push(fields) } }));
  return { server, audit, lines, logRecords: log.records };
}

/** One stdio connection in process; the client picks each request's id. */
function connection(server: ToolServer) {
  const waiters = new Map<unknown, (m: Msg) => void>();
  const session = new MessageStreamSession(
    server,
    (json) => {
      const msg = JSON.parse(json) as Msg;
      if ('id' in msg) waiters.get(msg.id)?.(msg);
    },
    'stdio',
  );
  return (id: string, method: string, params: Msg): Promise<Msg> =>
    new Promise((resolve) => {
      waiters.set(id, resolve);
      session.receive(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } }));
    });
}

/** Every string in a value, however deep. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}

describe('client-chosen values are kept bounded by telemetry, logs and the audit trail', () => {
  it('a 2 MiB request id: the span attribute, the audit record and the log line keep at most 256 characters of it', async () => {
    const otel = registerOtel();
    const { server, audit, lines } = serverWithSinks();
    const id = `id-${'x'.repeat(HUGE)}`;
    const answer = await connection(server)(id, 'tools/call', { name: 'echo', arguments: {} });
    expect(answer.result.isError).toBeFalsy();
    // The answer carries the id whole: JSON-RPC says so; only what is kept afterwards is bounded.
    expect(answer.id).toBe(id);

    const spanId = otel.span('tools/call echo').attributes['jsonrpc.request.id'] as string;
    expect(spanId.length).toBeLessThanOrEqual(MAX_RECORDED_CHARS);
    expect(spanId.startsWith('id-xxx')).toBe(true);
    expect(spanId).toMatch(/more characters\)$/);

    const record = audit.records.at(-1)!;
    expect(String(record.requestId).length).toBeLessThanOrEqual(MAX_RECORDED_CHARS);
    expect(JSON.stringify(record).length).toBeLessThan(2048);

    expect(lines).toHaveLength(1);
    expect(String(lines[0].requestId).length).toBeLessThanOrEqual(MAX_RECORDED_CHARS);
    expect(JSON.stringify(lines[0]).length).toBeLessThan(2048);
  });

  it('a 2 MiB tool name and resource URI: bounded in the span, the audit record and the error log', async () => {
    const otel = registerOtel();
    const { server, audit, logRecords } = serverWithSinks();
    const call = connection(server);
    const name = `t${'n'.repeat(HUGE)}`;
    const uri = `docs://${'u'.repeat(HUGE)}`;
    await call('1', 'tools/call', { name, arguments: {} });
    const read = await call('2', 'resources/read', { uri });
    expect(read.error).toBeDefined();
    // URIs over 8,192 characters are refused before any read; this one is just under.
    const broken = await call('3', 'resources/read', { uri: `broken://${'b'.repeat(8000)}` });
    expect(broken.error).toBeDefined();

    for (const span of otel.spans()) {
      expect(span.name.length).toBeLessThanOrEqual(2 * MAX_RECORDED_CHARS + 1);
      for (const value of strings(span.attributes)) expect(value.length).toBeLessThanOrEqual(MAX_RECORDED_CHARS);
      expect((span.status.message ?? '').length).toBeLessThanOrEqual(1024);
    }
    const uris = otel.spans().map((span) => span.attributes['mcp.resource.uri']);
    expect(uris).toContainEqual(expect.stringMatching(/^docs:\/\/uuu.*more characters\)$/));

    const logged = logRecords.find((r) => r.msg === 'a resource read returned invalid contents');
    expect(logged?.uri).toMatch(/^broken:\/\/bbb/);
    expect(JSON.stringify(logged).length).toBeLessThan(2048);

    expect(audit.records).toHaveLength(3);
    // argumentsJson has its own, larger bound (16 KiB, 1,024 characters a string), as before.
    for (const { argumentsJson, ...record } of audit.records) {
      for (const value of strings(record)) expect(value.length).toBeLessThanOrEqual(MAX_RECORDED_CHARS);
      expect(argumentsJson.length).toBeLessThanOrEqual(16 * 1024);
    }
  });
});
