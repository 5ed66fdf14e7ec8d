import type { ToolServer } from '../../src/server/server.js';
import { MessageStreamSession } from '../../src/transports/message-stream.js';

export const MODERN = '2026-07-28';

export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
    ...extra,
  };
}

type Msg = Record<string, any>;

/**
 * Talks raw JSON-RPC to a server through the same session code stdio uses,
 * collecting every line the server writes.
 */
export function wire(server: ToolServer) {
  const written: Msg[] = [];
  const waiters = new Map<unknown, (m: Msg) => void>();
  const session = new MessageStreamSession(
    server,
    (json) => {
      const msg = JSON.parse(json) as Msg;
      written.push(msg);
      if ('id' in msg && waiters.has(msg.id)) waiters.get(msg.id)!(msg);
    },
    'memory',
  );
  let nextId = 1;
  const send = (message: Msg) => session.receive(JSON.stringify(message));
  const request = (method: string, params?: Msg, id: string | number = nextId++): Promise<Msg> =>
    new Promise((resolve) => {
      waiters.set(id, resolve);
      send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    });
  /** A modern request: `_meta` envelope merged into params. */
  const modern = (method: string, params: Msg = {}, meta: Msg = {}) => request(method, { ...params, _meta: modernMeta(meta) });
  const initialize = async (protocolVersion = '2025-11-25') => {
    const res = await request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return res;
  };
  return { session, written, send, request, modern, initialize, raw: (text: string) => session.receive(text) };
}

/** A logger that keeps records in memory so tests can assert what reached the log. */
export function memoryLogger() {
  const records: Msg[] = [];
  const make = (): any => {
    const log = (level: string) => (obj: unknown, msg?: string) => records.push({ level, ...(typeof obj === 'object' ? (obj as Msg) : { msg: obj }), msg });
    return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), trace: () => {}, fatal: log('fatal'), child: () => make() };
  };
  return { logger: make(), records };
}

/** A logger whose every method throws, as a broken custom logger would. */
export function throwingLogger(): any {
  const broken = () => {
    throw new Error('log sink gone');
  };
  const logger: any = { debug: broken, info: broken, warn: broken, error: broken, fatal: broken, trace: broken };
  logger.child = () => logger;
  return logger;
}
