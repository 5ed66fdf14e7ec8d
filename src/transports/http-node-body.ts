import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { BodyAbortedError, BodyConsumedError, BodyTooLargeError, declaredTooLarge, invalidUtf8 } from './http-body.js';

/**
 * Reads a Node request body, refusing more than `limit` bytes without
 * buffering them (the endpoint answers 413 and closes the connection rather
 * than read the rest). The body must be UTF-8 (JSON text, RFC 8259 §8.1),
 * checked in one native pass (`isUtf8`) over bytes already in memory.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<string> {
  if (declaredTooLarge(req.headers['content-length'], limit)) return Promise.reject(new BodyTooLargeError());
  if (req.readableEnded) return bodyReadByHost(req as IncomingMessage & { body?: unknown }, limit);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // 'close' fires for every request, also after 'end': an error built then (stack capture
    // included) cost ~9% of an HTTP call's server CPU, so it is built only while unsettled.
    let settled = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        settled = true;
        req.off('data', onData);
        chunks.length = 0;
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (settled) return;
      settled = true;
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      if (!isUtf8(body)) reject(invalidUtf8());
      else resolve(body.toString('utf8'));
    });
    // An abort surfaces as 'error' (ECONNRESET) and/or 'close' before 'end'.
    const aborted = () => {
      if (settled) return;
      settled = true;
      reject(new BodyAbortedError());
    };
    req.on('error', aborted);
    req.on('close', aborted);
  });
}

/**
 * A host app's body parser (express.json(), express.text(), express.raw())
 * read the stream before the handler was called and left its result in
 * `req.body`: served from that, under the same size limit (the declared
 * length was checked before). The parser decoded the bytes itself, so the
 * strict UTF-8 check holds only for a Buffer; mount the handler before body
 * parsers to keep it for every body.
 */
function bodyReadByHost(req: IncomingMessage & { body?: unknown }, limit: number): Promise<string> {
  const body = req.body;
  let text: string;
  if (typeof body === 'string') text = body;
  else if (Buffer.isBuffer(body)) {
    if (!isUtf8(body)) return Promise.reject(invalidUtf8());
    text = body.toString('utf8');
  } else if (body !== null && typeof body === 'object') text = JSON.stringify(body);
  else return Promise.reject(new BodyConsumedError());
  if (Buffer.byteLength(text) > limit) return Promise.reject(new BodyTooLargeError());
  return Promise.resolve(text);
}
