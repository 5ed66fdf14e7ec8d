// A small raw HTTP/1.1 client on node:net: keep-alive connections, one request in flight
// per connection, Content-Length and chunked bodies, JSON or SSE answers. Written by hand
// so the load generator costs as little CPU as possible and no SDK is involved.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { piecesLength } from './workloads.mjs';

const CRLF2 = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

class Connection {
  constructor(port) {
    this.port = port;
    this.socket = null;
    this.waiter = null;
    this.reset();
  }

  reset() {
    this.state = 'head';
    this.rest = null;
    this.status = 0;
    this.headers = null;
    this.body = [];
    this.remaining = 0;
  }

  open() {
    const socket = net.connect({ host: '127.0.0.1', port: this.port });
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => {
      if (this.socket === socket) this.socket = null;
      if (this.state === 'close-delimited') return this.finish();
      this.fail(new Error('connection closed by the server before the answer was complete'));
    });
    this.socket = socket;
  }

  /** Sends one request; resolves with { status, headers, body } (body: utf8 string). */
  request(head, pieces) {
    if (this.waiter) return Promise.reject(new Error('connection busy'));
    if (!this.socket || this.socket.destroyed) this.open();
    this.reset();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject, t0: performance.now() };
      const s = this.socket;
      if (pieces.length === 1 && typeof pieces[0] === 'string') return void s.write(head + pieces[0]);
      s.cork();
      s.write(head);
      for (const p of pieces) s.write(p);
      s.uncork();
    });
  }

  fail(err) {
    const w = this.waiter;
    this.waiter = null;
    if (this.socket) this.socket.destroy();
    this.socket = null;
    if (w) w.reject(err);
  }

  finish() {
    const arrived = performance.now();
    const w = this.waiter;
    this.waiter = null;
    const res = {
      rtt: w ? arrived - w.t0 : NaN,
      status: this.status,
      headers: this.headers,
      body: (this.body.length === 1 ? this.body[0] : Buffer.concat(this.body)).toString('utf8'),
    };
    if (this.headers.connection?.toLowerCase() === 'close' && this.socket) {
      this.socket.destroy();
      this.socket = null;
    }
    this.reset();
    if (w) w.resolve(res);
  }

  onData(chunk) {
    if (this.rest) {
      chunk = Buffer.concat([this.rest, chunk]);
      this.rest = null;
    }
    let pos = 0;
    // Each state returns when it needs more bytes; a state that completes falls through to the next.
    for (;;) {
      switch (this.state) {
        case 'head': {
          const end = chunk.indexOf(CRLF2, pos);
          if (end === -1) {
            if (chunk.length - pos > 64 * 1024) return this.fail(new Error('response head too large'));
            this.rest = chunk.subarray(pos);
            return;
          }
          const lines = chunk.toString('latin1', pos, end).split('\r\n');
          pos = end + 4;
          this.status = Number(lines[0].split(' ')[1]);
          const headers = {};
          for (let i = 1; i < lines.length; i++) {
            const c = lines[i].indexOf(':');
            headers[lines[i].slice(0, c).trim().toLowerCase()] = lines[i].slice(c + 1).trim();
          }
          this.headers = headers;
          if (this.status >= 100 && this.status < 200) break; // 100 Continue: another head follows
          if (/chunked/i.test(headers['transfer-encoding'] ?? '')) this.state = 'chunk-size';
          else if (headers['content-length'] !== undefined) {
            this.remaining = Number(headers['content-length']);
            this.state = 'length';
            if (this.remaining === 0) return this.finish();
          } else if (this.status === 204 || this.status === 304) return this.finish();
          else this.state = 'close-delimited';
          break;
        }
        case 'length':
        case 'chunk-data': {
          const take = Math.min(this.remaining, chunk.length - pos);
          if (take > 0) this.body.push(chunk.subarray(pos, pos + take));
          pos += take;
          this.remaining -= take;
          if (this.remaining > 0) return;
          if (this.state === 'length') return this.finish();
          this.state = 'chunk-crlf';
          break;
        }
        case 'chunk-crlf':
          if (chunk.length - pos < 2) {
            this.rest = chunk.subarray(pos);
            return;
          }
          pos += 2;
          this.state = 'chunk-size';
          break;
        case 'chunk-size': {
          const end = chunk.indexOf(CRLF, pos);
          if (end === -1) {
            this.rest = chunk.subarray(pos);
            return;
          }
          const size = parseInt(chunk.toString('latin1', pos, end).split(';')[0], 16);
          pos = end + 2;
          if (Number.isNaN(size)) return this.fail(new Error('bad chunk size'));
          if (size === 0) this.state = 'trailer';
          else {
            this.remaining = size;
            this.state = 'chunk-data';
          }
          break;
        }
        case 'trailer': {
          const end = chunk.indexOf(CRLF, pos);
          if (end === -1) {
            this.rest = chunk.subarray(pos);
            return;
          }
          const empty = end === pos;
          pos = end + 2;
          if (empty) return this.finish();
          break;
        }
        case 'close-delimited':
          if (pos < chunk.length) this.body.push(chunk.subarray(pos));
          return;
        default:
          return;
      }
    }
  }

  close() {
    if (this.socket) this.socket.destroy();
    this.socket = null;
  }
}

/** The JSON-RPC answer in a response: a JSON body, or the SSE event that carries `id`. */
export function answerOf(res, id) {
  const type = res.headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream')) {
    let found;
    for (const event of res.body.split(/\r?\n\r?\n/)) {
      let data = '';
      for (const line of event.split(/\r?\n/)) {
        if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(line[5] === ' ' ? 6 : 5);
      }
      if (!data) continue;
      const msg = JSON.parse(data);
      if (msg && msg.method === undefined && msg.id === id) found = msg;
    }
    if (!found) throw new Error(`SSE response (HTTP ${res.status}) carries no answer for id ${id}: ${res.body.slice(0, 160)}`);
    return found;
  }
  if (!type.startsWith('application/json')) throw new Error(`HTTP ${res.status} with content-type "${type}": ${res.body.slice(0, 160)}`);
  return JSON.parse(res.body);
}

/**
 * A pool of keep-alive connections to one Streamable HTTP endpoint; slot i uses
 * connection i. `extraHeaders` (session id, negotiated version) go on every request.
 */
export class HttpChannel {
  constructor(port, { path = '/mcp', extraHeaders = '' } = {}) {
    this.port = port;
    this.prefix = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n${extraHeaders}`;
    this.slots = [];
  }

  slot(i) {
    let s = this.slots[i];
    if (!s) {
      const conn = new Connection(this.port);
      s = this.slots[i] = {
        conn,
        send: (req, id, headers = '') => this.send(conn, req, id, headers),
      };
    }
    return s;
  }

  async raw(conn, req, headers) {
    const head = `${this.prefix}${headers}content-length: ${piecesLength(req.pieces)}\r\n\r\n`;
    return conn.request(head, req.pieces);
  }

  /** Resolves with { msg, rtt } (rtt: ms from the write to the last byte of the response). */
  async send(conn, req, id, headers) {
    const res = await this.raw(conn, req, headers);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.slice(0, 200)}`);
    return { msg: answerOf(res, id), rtt: res.rtt };
  }

  close() {
    for (const s of this.slots) s?.conn.close();
    this.slots = [];
  }
}
