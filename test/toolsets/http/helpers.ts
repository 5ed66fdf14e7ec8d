import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ToolServer } from '../../../src/server/server.js';
import { httpTools, type HttpToolsetOptions } from '../../../src/toolsets/http/index.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'toolsets-net');
export const TEST_CA = readFileSync(join(FIXTURES, 'ca.pem'));
const TLS = { cert: readFileSync(join(FIXTURES, 'public-test.pem')), key: readFileSync(join(FIXTURES, 'public-test-key.pem')) };

/** A 1×1 transparent PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

export interface Listening {
  server: Server;
  port: number;
  /** TCP connections accepted. */
  connections: number;
  /** Requests seen, as `METHOD path host`. */
  requests: string[];
  /** TLS server names (SNI) clients asked for. */
  servernames: Array<string | false | null>;
  close(): Promise<void>;
}

async function listen(server: http.Server | https.Server, host = '127.0.0.1'): Promise<Listening> {
  const state: Listening = {
    server,
    port: 0,
    connections: 0,
    requests: [],
    servernames: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => state.connections++);
  server.on('secureConnection', (socket: import('node:tls').TLSSocket) => state.servernames.push(socket.servername));
  server.on('request', (req: http.IncomingMessage) => state.requests.push(`${req.method} ${req.url} ${req.headers.host}`));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  return state;
}

/** A listener that must never be reached: it counts connections and answers nothing useful. */
export function canary(host = '127.0.0.1'): Promise<Listening> {
  return listen(
    http.createServer((_req, res) => res.end('CANARY REACHED')),
    host,
  );
}

/** The stand-in for the internet: text, JSON, images, redirects, huge and slow bodies. */
export function contentServer(secure = false): Promise<Listening> {
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string | undefined, body: string | Buffer, extra: Record<string, string> = {}) => {
      res.writeHead(status, { ...(type ? { 'content-type': type } : {}), ...extra });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    switch (url.pathname) {
      case '/text':
        return send(200, 'text/plain; charset=utf-8', 'hello text ✓');
      case '/json':
        return send(200, 'application/json', JSON.stringify({ ok: true, items: [1, 2] }));
      case '/latin1':
        return send(200, 'text/html; charset=iso-8859-1', Buffer.from('<p>caf\xe9</p>', 'latin1'));
      case '/untyped':
        return send(200, undefined, 'plain words without a type');
      case '/svg':
        return send(200, 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>');
      case '/image':
        return send(200, 'image/png', PNG);
      case '/binary':
        return send(200, 'application/octet-stream', Buffer.from([0, 1, 2, 3, 255]));
      case '/gzip':
        return send(200, 'text/plain', gzipSync('compressed hello'), { 'content-encoding': 'gzip' });
      case '/badgzip':
        return send(200, 'text/plain', 'this is not gzip at all', { 'content-encoding': 'gzip' });
      case '/bomb':
        // 64 MiB of zeros in about 64 KiB: the cap must hold after decoding.
        return send(200, 'text/plain', gzipSync(Buffer.alloc(64 << 20)), { 'content-encoding': 'gzip' });
      case '/huge': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        return pump();
      }
      case '/slow':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('start…');
        return; // never ends
      case '/status':
        return send(Number(url.searchParams.get('code') ?? 500), 'text/plain', `status body ${url.searchParams.get('code')}`);
      case '/redirect':
        return send(Number(url.searchParams.get('status') ?? 302), 'text/plain', 'moved', { location: url.searchParams.get('to') ?? '/text' });
      case '/loop':
        return send(302, 'text/plain', 'again', { location: '/loop' });
      case '/echo': {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () =>
          send(200, 'application/json', JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })),
        );
        return;
      }
      default:
        return send(404, 'text/plain', 'not found');
    }
  };
  return listen(secure ? https.createServer(TLS, handler) : http.createServer(handler));
}

/** A server with the http toolset, driven through the real pipeline (approval off: only fetch_url's behaviour is under test). */
export function httpServer(options: HttpToolsetOptions, serverOptions: { maxResultBytes?: number } = {}) {
  const log = memoryLogger();
  const server = new ToolServer({ logger: log.logger, tools: httpTools(options), approval: 'never', limits: { maxResultBytes: serverOptions.maxResultBytes } });
  const w = wire(server);
  const call = async (args: Record<string, unknown>) => (await w.modern('tools/call', { name: 'fetch_url', arguments: args })).result;
  return { ...w, call, server, records: log.records };
}

/**
 * How "public" hosts exist on a closed network: a test resolver maps names
 * to public-looking addresses, and the dial override (applied only after the
 * policy approved an address) sends those addresses to loopback servers.
 * Loopback addresses pass through unchanged, so a policy bug that let
 * 127.0.0.1 through would really reach the canary; any other address throws,
 * so nothing ever leaves this machine.
 */
export function publicNetwork(names: Record<string, string | string[] | (() => string[])>, publicToLoopback: Record<string, number>) {
  const lookups: string[] = [];
  const lookup = async (host: string) => {
    lookups.push(host);
    const entry = names[host];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const list = typeof entry === 'function' ? entry() : Array.isArray(entry) ? entry : [entry];
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const dialOverride = ({ address, port }: { address: string; port: number }) => {
    const mapped = publicToLoopback[address];
    if (mapped !== undefined) return { address: '127.0.0.1', port: mapped };
    if (address === '127.0.0.1' || address === '::1') return { address, port };
    throw new Error(`test network: refusing to dial non-loopback address ${address}`);
  };
  return { lookup, dialOverride, lookups };
}
