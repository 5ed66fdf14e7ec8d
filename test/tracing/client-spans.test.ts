import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { ToolError, ToolServer } from '../../src/index.js';
import { startHttp } from '../helpers/http.js';
import { registerOtel } from '../helpers/otel.js';
import { memoryLogger } from '../helpers/wire.js';

function makeServer() {
  return new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tools: [
      {
        name: 'get_weather',
        description: 'weather',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        handler: ({ city }: { city: string }) => `sunny in ${city}`,
      },
      {
        name: 'fail',
        description: 'isError',
        inputSchema: { type: 'object' },
        handler: () => {
          throw new ToolError('no');
        },
      },
    ],
  });
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('a CLIENT span per request, parent of the server span across a real HTTP connection', () => {
  it.each(['modern', 'legacy'] as const)('%s era', async (era) => {
    const otel = registerOtel();
    const http = await startHttp(makeServer());
    closers.push(() => http.close());
    const client = await ToolClient.connect({ url: http.url }, { era });
    closers.push(() => client.close());
    const result = await client.callTool('get_weather', { city: 'Oslo' });
    expect(result.content).toEqual([{ type: 'text', text: 'sunny in Oslo' }]);

    const calls = otel.spans().filter((s) => s.name === 'tools/call get_weather');
    const clientSpan = calls.find((s) => s.kind === SpanKind.CLIENT)!;
    const serverSpan = calls.find((s) => s.kind === SpanKind.SERVER)!;
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(serverSpan.spanContext().traceId).toBe(clientSpan.spanContext().traceId);
    const port = Number(new URL(http.url).port);
    expect(clientSpan.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': expect.any(String),
      'network.transport': 'tcp',
      'server.address': '127.0.0.1',
      'server.port': port,
    });
    expect(serverSpan.attributes['jsonrpc.request.id']).toBe(clientSpan.attributes['jsonrpc.request.id']);
    if (era === 'legacy') {
      expect(clientSpan.attributes['mcp.session.id']).toEqual(expect.any(String));
      expect(serverSpan.attributes['mcp.session.id']).toBe(clientSpan.attributes['mcp.session.id']);
      // The handshake is traced too.
      expect(
        otel
          .spans()
          .filter((s) => s.name === 'initialize')
          .map((s) => s.kind)
          .sort(),
      ).toEqual([SpanKind.SERVER, SpanKind.CLIENT].sort());
    }
    const points = await otel.histogram('mcp.client.operation.duration');
    expect(points).toContainEqual(
      expect.objectContaining({
        attributes: expect.objectContaining({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'server.address': '127.0.0.1' }),
        count: 1,
      }),
    );
  });

  it('an isError result is error.type tool_error on the client span too', async () => {
    const otel = registerOtel();
    const http = await startHttp(makeServer());
    closers.push(() => http.close());
    const client = await ToolClient.connect({ url: http.url });
    closers.push(() => client.close());
    expect((await client.callTool('fail')).isError).toBe(true);
    const clientSpan = otel.spans().find((s) => s.name === 'tools/call fail' && s.kind === SpanKind.CLIENT)!;
    expect(clientSpan.attributes['error.type']).toBe('tool_error');
    expect(clientSpan.status.code).toBe(SpanStatusCode.ERROR);
  });
});
