import { SpanKind } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { ToolServer } from '../../src/index.js';
import { startHttp } from '../helpers/http.js';
import { registerOtel } from '../helpers/otel.js';
import { memoryLogger } from '../helpers/wire.js';

// Issue 33: with no provider registered the tracing modules and @opentelemetry/api are not loaded
// (tracing/lazy.ts). This file's module state starts with them unloaded (vitest isolates files),
// so the first request after a provider appears is the one that loads them: it is traced all the same.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('a provider registered after start-up', () => {
  it('is picked up by the next request, on the client and the server, parent and child as always', async () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'get_weather', description: 'weather', inputSchema: { type: 'object' }, handler: () => 'sunny' }],
    });
    const http = await startHttp(server);
    closers.push(() => http.close());
    const client = await ToolClient.connect({ url: http.url });
    closers.push(() => client.close());
    expect((await client.callTool('get_weather', {})).isError).toBeFalsy(); // nothing registered: nothing recorded, nothing loaded

    const otel = registerOtel();
    expect((await client.callTool('get_weather', {})).content).toEqual([{ type: 'text', text: 'sunny' }]);
    const calls = otel.spans().filter((s) => s.name === 'tools/call get_weather');
    const clientSpan = calls.find((s) => s.kind === SpanKind.CLIENT);
    const serverSpan = calls.find((s) => s.kind === SpanKind.SERVER);
    expect(clientSpan).toBeDefined();
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
    expect((await otel.histogram('mcp.server.operation.duration')).map((p) => p.count)).toEqual([1]);
    expect((await otel.histogram('mcp.client.operation.duration')).map((p) => p.count)).toEqual([1]);
  });
});
