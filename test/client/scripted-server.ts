import { StreamConnection } from '../../src/client/transports/stream-connection.js';
import type { ClientTransport, IncomingResponse, SendOptions, ServerRequestHandler } from '../../src/client/transport.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../src/jsonrpc/types.js';

type Msg = Record<string, any>;
/** Answers one request: return a result object, `{ error }`, or undefined to stay silent. */
// biome-ignore lint/suspicious/noConfusingVoidType: a script with a block body and no return is typed void, and is a silent script
export type Script = (request: Msg, send: (message: Msg) => void) => Msg | undefined | void;

export const MODERN_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * A fake server that says exactly what a test scripts, wrong or right,
 * behind the same StreamConnection the stdio transport uses. Everything the
 * client sends is recorded.
 */
export function scriptedTransport(script: Script): ClientTransport & { sent: Msg[] } {
  const sent: Msg[] = [];
  const send = (message: Msg) => queueMicrotask(() => connection.receive(JSON.stringify({ jsonrpc: '2.0', ...message })));
  const connection = new StreamConnection(
    (json) => {
      const message = JSON.parse(json) as Msg;
      sent.push(message);
      if (!('id' in message) || !('method' in message)) return;
      const reply = script(message, send);
      if (reply === undefined) return;
      if ('error' in reply) send({ id: message.id, error: reply.error });
      else send({ id: message.id, result: reply });
    },
    () => {},
  );
  const transport = {
    kind: 'stdio' as const,
    sent,
    onNotification: undefined as ((n: JsonRpcNotification) => void) | undefined,
    get onServerRequest() {
      return connection.onRequest;
    },
    set onServerRequest(handler: ServerRequestHandler | undefined) {
      connection.onRequest = handler;
    },
    request: (request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse> => connection.request(request, options),
    notify: async (notification: JsonRpcNotification) => connection.notify(notification),
    close: async () => connection.fail(new Error('closed')),
  };
  connection.onNotification = (n) => transport.onNotification?.(n);
  return transport;
}

/** A well-behaved modern discover result. */
export const DISCOVER = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'public',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '1.0.0' } },
};

export const SUM_TOOL = {
  name: 'sum',
  description: 'adds',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
};

/** A modern server listing `tools` and answering calls with `call(params)`. */
export function modernServer(tools: unknown[], call: (params: Msg) => Msg | undefined = () => ({ content: [] })): Script {
  return (request) => {
    switch (request.method) {
      case 'server/discover':
        return DISCOVER;
      case 'tools/list':
        return { resultType: 'complete', tools, ttlMs: 60_000, cacheScope: 'public' };
      case 'tools/call':
        return call(request.params);
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  };
}
