import type { IncomingMessage } from 'node:http';

/**
 * Reads a Node request or response body to its end as one Buffer, at most `maxBytes` of it: past
 * that the stream is cut and the promise rejects with `tooLarge()`, without buffering the rest.
 * Peers are hostile: none may make us hold memory without bound, or wait forever on a body cut
 * short (a stream closed before its end rejects with `closedEarly()`). Beside readCapped
 * (read-capped.ts), which does the same for a fetch Response.
 */
export function readNodeCapped(
  stream: IncomingMessage,
  maxBytes: number,
  tooLarge: () => Error,
  closedEarly: () => Error = () => new Error('the connection closed before the end of the body'),
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stream.destroy();
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    stream.once('error', reject);
    // Checked before the error is built: building one captures a stack, on every body otherwise.
    stream.once('close', () => stream.complete || reject(closedEarly()));
  });
}
