// `--transport http` of bench:instructions: the server's Streamable HTTP endpoint (serveHttp on
// 127.0.0.1) in the driver's process, fed by the bench's raw keep-alive client, 16 connections
// with one request in flight each (the wall-clock bench's HTTP leg). The client's work is
// counted too (reading each answer's head and body: the same for every build), so compare
// two builds, not this figure with the stdio one. Modern era only: a legacy session's
// initialize handshake is not driven here. `--transport fetch` serves the same endpoint through
// its web-standard face (createHttpHandler(…).fetch) on Hono's Node adapter, as the wall-clock
// bench's toolwright-fetch target does.
import { serve } from '@hono/node-server';
import { createHttpHandler } from '../../dist/http.js';
import { answerOf, HttpChannel } from './http-channel.mjs';

const CONNECTIONS = 16;

/** serveHttp's shape for the fetch face: the handler's `fetch` on Hono's Node adapter, on 127.0.0.1. */
export function serveFetchOnNode(server, { host, port, headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs }) {
  const mcp = createHttpHandler(server, { allowedHosts: ['127.0.0.1', 'localhost'] });
  const node = serve({
    hostname: host,
    port,
    serverOptions: { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, keepAliveTimeout: keepAliveTimeoutMs },
    fetch: (request, env) => mcp.fetch(request, { remoteAddress: env.incoming.socket.remoteAddress }),
  });
  return new Promise((resolve) => {
    node.once('listening', () =>
      resolve({
        port: node.address().port,
        close: () => new Promise((done) => node.close(() => done())),
      }),
    );
  });
}

/**
 * Serves `server` over HTTP and sends `calls` requests of `workload`; `onAnswered(count)` runs
 * after each answer (the driver's measurement marks). Resolves with the first failed check, if any.
 */
export async function driveHttp(server, serveHttp, workload, calls, onAnswered) {
  // Deadlines far off: under valgrind a connection's requests come ~50 times slower (the default 10 s for a request's headers answered 408, an idle connection was closed).
  const deadlines = { headersTimeoutMs: 600_000, requestTimeoutMs: 600_000, keepAliveTimeoutMs: 600_000 };
  const handle = await serveHttp(server, { host: '127.0.0.1', port: 0, ...deadlines });
  const channel = new HttpChannel(handle.port);
  let sent = 0;
  let answered = 0;
  let failure;
  const loop = async (slot) => {
    const { conn } = channel.slot(slot);
    while (sent < calls) {
      const id = sent++;
      const res = await channel.raw(conn, workload.request(id), workload.httpHeaders);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.slice(0, 200)}`);
      // The first round of answers is parsed and checked, so a run that only produced errors is reported, not measured.
      if (answered < CONNECTIONS) {
        try {
          workload.check(answerOf(res, id), id);
        } catch (err) {
          failure ??= err.message;
        }
      }
      onAnswered(++answered);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, slot) => loop(slot)));
  channel.close();
  await handle.close();
  return failure;
}
