import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { serveStdio } from '../../src/transports/stdio-server.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

describe('stdio backpressure', () => {
  it('stops reading requests while the client is not reading answers, and answers everything once it does', async () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'echo', description: 'x', inputSchema: { type: 'object' }, handler: () => 'y'.repeat(1000) }],
    });
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 1024 });
    serveStdio(server, { input, output });
    for (let id = 1; id <= 200; id++)
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: modernMeta() } })}\n`);
    await new Promise((r) => setTimeout(r, 50));
    expect(input.isPaused()).toBe(true);
    let text = '';
    output.on('data', (d) => (text += d));
    await expect.poll(() => text.split('\n').filter(Boolean).length, { timeout: 5_000 }).toBe(200);
    expect(input.isPaused()).toBe(false);
  });
});
