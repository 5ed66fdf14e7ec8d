import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';

export class BodyTooLargeError extends Error {}

/** The client went away (or was cut off) before the whole body arrived: there is no one to answer. */
export class BodyAbortedError extends Error {}

/**
 * Reads a request body, refusing more than `limit` bytes without buffering
 * them (the caller answers 413 and closes the connection rather than read
 * the rest). The body must be UTF-8 (JSON text, RFC 8259 §8.1): a decoder
 * that repairs bad bytes into U+FFFD would run what the client never sent,
 * so invalid bytes are a parse error. One native pass (`isUtf8`) over bytes
 * already in memory.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError());
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
      if (!isUtf8(body)) reject(new RpcError(ErrorCode.ParseError, 'Parse error: the message is not valid UTF-8', undefined, 400));
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
