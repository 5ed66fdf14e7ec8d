import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { serveStdio, type StdioServerHandle } from '../../src/transports/stdio-server.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

let handle: StdioServerHandle | undefined;
afterEach(() => handle?.close());

/** serveStdio on in-process streams: send lines, read what it writes. */
function start(maxListenStreams?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tools: [{ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'a' }],
  });
  handle = serveStdio(server, { input, output, ...(maxListenStreams ? { maxListenStreams } : {}) });
  const messages: Array<Record<string, any>> = [];
  let buffer = '';
  output.on('data', (d) => {
    buffer += d;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      messages.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  const send = (msg: unknown) => input.write(`${JSON.stringify(msg)}\n`);
  const listen = (id: number) =>
    send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } });
  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 5_000;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(check()).toBe(true);
  };
  return { send, listen, messages, until };
}

describe('caps on listen streams over stdio', () => {
  it('refuses a listen past the cap with an error for its id; cancelling one frees a slot', async () => {
    const s = start(2);
    s.listen(1);
    s.listen(2);
    s.listen(3);
    await s.until(() => s.messages.some((m) => m.id === 3));
    const refused = s.messages.find((m) => m.id === 3)!;
    expect(refused.error.message).toMatch(/Too Many Requests: .*open streams/);
    expect(s.messages.filter((m) => m.method === 'notifications/subscriptions/acknowledged')).toHaveLength(2);
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    s.listen(4);
    await s.until(() =>
      s.messages.some((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta['io.modelcontextprotocol/subscriptionId'] === 4),
    );
  });

  it('has a default cap: a flood of listens is not all held', async () => {
    const s = start();
    for (let id = 1; id <= 300; id++) s.listen(id);
    await s.until(() => s.messages.filter((m) => m.error).length + s.messages.filter((m) => m.method).length >= 300);
    expect(s.messages.filter((m) => m.method === 'notifications/subscriptions/acknowledged')).toHaveLength(32);
    expect(s.messages.filter((m) => m.error)).toHaveLength(268);
  });
});
