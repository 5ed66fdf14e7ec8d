import { afterAll, beforeAll, expect, it } from 'vitest';
import { ToolClient } from '../../../src/client.js';
import { createLogger } from '../../../src/runtime/logger.js';
import { ToolServer } from '../../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../../src/transports/http-server.js';

// A browser's fetch throws "Illegal invocation" when called with another object as `this`
// (kept on the transport and called as this.fetch(…)); Node's does not mind. This fetch
// behaves as a browser's does, so the rule holds in Node's tests too.
function browserLikeFetch(this: unknown, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  if (this !== undefined && this !== globalThis) return Promise.reject(new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation"));
  return fetch(input, init);
}

let handle: HttpServerHandle;
beforeAll(async () => {
  const server = new ToolServer({ name: 'plain-fetch', version: '1.0.0', logger: createLogger('silent') });
  server.addTool({ name: 'ping', description: 'Answers pong', inputSchema: { type: 'object' }, handler: () => 'pong' });
  handle = await serveHttp(server, { port: 0 });
});
afterAll(() => handle.close());

for (const era of ['modern', 'legacy'] as const) {
  it(`calls the fetch it is given as a plain function, as a browser's must be called (${era})`, async () => {
    const client = await ToolClient.connect({ url: handle.url, fetch: browserLikeFetch as typeof fetch }, { era });
    try {
      expect((await client.callTool('ping')).content).toEqual([{ type: 'text', text: 'pong' }]);
    } finally {
      await client.close();
    }
  });
}
