import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNodeCapped } from '../../src/io/read-node-capped.js';

// The capped reader of Node bodies (the facade's forms, client metadata documents, the gateway's
// upstream answers), against a real server on 127.0.0.1 whose handler reads each request body.
describe('readNodeCapped', () => {
  let server: Server;
  let port: number;
  const outcomes: Array<Promise<string>> = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const read = readNodeCapped(
        req,
        1024,
        () => new Error('too large'),
        () => new Error('cut short'),
      ).then((b) => b.toString('utf8'));
      outcomes.push(read.catch((err: Error) => `rejected: ${err.message}`));
      read.then(
        () => res.end('ok'),
        () => res.destroyed || res.end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends a chunked body (no declared length), then ends the request or cuts the connection. */
  async function send(chunks: string[], cut = false): Promise<string> {
    const before = outcomes.length;
    const req = request({ port, host: '127.0.0.1', method: 'POST' });
    req.on('error', () => {});
    req.on('response', (res) => res.resume());
    for (const chunk of chunks) req.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (cut) req.destroy();
    else req.end();
    await expect.poll(() => outcomes.length).toBeGreaterThan(before);
    return outcomes[before];
  }

  it('gives the whole body of several chunks', async () => {
    expect(await send(['{"a":', '1}'])).toBe('{"a":1}');
  });

  it('refuses a body past the cap, without waiting for its end', async () => {
    expect(await send(['x'.repeat(800), 'y'.repeat(800)])).toBe('rejected: too large');
  });

  it('rejects a body cut short instead of waiting forever', async () => {
    // Node reports a request cut short as an error ("aborted") before it closes; either settles it.
    expect(await send(['{"half":'], true)).toMatch(/^rejected: (aborted|cut short)$/);
  });
});
