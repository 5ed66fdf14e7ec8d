import { ErrorCode, RpcError } from '../jsonrpc/errors.js';

export class BodyTooLargeError extends Error {}

/** The client went away (or was cut off) before the whole body arrived: there is no one to answer. */
export class BodyAbortedError extends Error {}

/** The body was read before the handler saw it (a host's body parser) and nothing it made is left to use. */
export class BodyConsumedError extends Error {}

/**
 * A JSON body must be UTF-8 (RFC 8259 §8.1): a decoder that repairs bad
 * bytes into U+FFFD would run what the client never sent, so invalid bytes
 * are a parse error.
 */
export function invalidUtf8(): RpcError {
  return new RpcError(ErrorCode.ParseError, 'Parse error: the message is not valid UTF-8', undefined, 400);
}

/** A declared Content-Length past the limit: refused before a byte is read. */
export function declaredTooLarge(contentLength: string | string[] | null | undefined, limit: number): boolean {
  const declared = Number(contentLength);
  return Number.isFinite(declared) && declared > limit;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a web body stream as UTF-8 text, refusing more than `limit` bytes
 * without buffering them: the stream is cancelled at the first chunk past it.
 * `aborted` tells a client that went away from a stream that failed.
 */
export async function readWebBody(body: ReadableStream<Uint8Array> | null, limit: number, aborted: () => boolean): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => undefined);
        throw new BodyTooLargeError();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw err;
    throw aborted() ? new BodyAbortedError() : err;
  }
  return decodeUtf8(chunks.length === 1 ? chunks[0] : concat(chunks, size));
}

/** The bytes as text; a parse error for bytes that are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array | ArrayBuffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalidUtf8();
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
