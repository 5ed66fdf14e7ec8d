import type { FileHandle } from 'node:fs/promises';
import { readFully } from '../../policy/path-io.js';

/**
 * Windows onto a text file that never hold more than `maxBytes` in memory:
 * a byte range, or a range of lines found by scanning chunk by chunk.
 * Windows are cut on UTF-8 character boundaries, so a multi-byte character
 * is never split into replacement characters.
 */
const CHUNK = 64 * 1024;
const decoder = new TextDecoder('utf-8');

interface ByteWindow {
  text: string;
  start: number;
  /** Offset just past the last byte returned: where the next call continues. */
  end: number;
}

export async function readByteWindow(handle: FileHandle, size: number, offset: number, maxBytes: number): Promise<ByteWindow> {
  const want = Math.max(0, Math.min(maxBytes, size - offset));
  const buf = Buffer.alloc(want);
  const bytesRead = await readFully(handle, buf, offset);
  let from = 0;
  // Starting inside a character: skip its continuation bytes.
  if (offset > 0) while (from < bytesRead && from < 3 && (buf[from] & 0xc0) === 0x80) from++;
  const to = offset + bytesRead < size ? completeUtf8(buf, bytesRead) : bytesRead;
  return { text: decoder.decode(buf.subarray(from, to)), start: offset + from, end: offset + to };
}

interface LineWindow {
  text: string;
  firstLine: number;
  /** The last line returned, or firstLine - 1 when none was. */
  lastLine: number;
  /** The file goes on after what was returned. */
  more: boolean;
  /** The window stopped at maxBytes, possibly inside a line. */
  truncated: boolean;
  /** Lines the file has, when the scan reached its end. */
  totalLines?: number;
}

/** Lines `startLine`..`endLine` (1-based, inclusive; endLine open when undefined), at most `maxBytes`. */
export async function readLineWindow(
  handle: FileHandle,
  startLine: number,
  endLine: number | undefined,
  maxBytes: number,
  signal: AbortSignal,
): Promise<LineWindow> {
  const last = endLine ?? Infinity;
  const buf = Buffer.alloc(CHUNK);
  const parts: Buffer[] = [];
  let line = 1;
  let position = 0;
  let collected = 0;
  let more = false;
  let truncated = false;
  let eof = false;
  let lastByte = -1;
  scan: for (;;) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buf, 0, CHUNK, position);
    if (bytesRead === 0) {
      eof = true;
      break;
    }
    position += bytesRead;
    const chunk = buf.subarray(0, bytesRead);
    lastByte = chunk[bytesRead - 1];
    let i = 0;
    while (i < bytesRead) {
      if (line > last) {
        more = true;
        break scan;
      }
      const nl = chunk.indexOf(10, i);
      const stop = nl === -1 ? bytesRead : nl + 1;
      if (line >= startLine) {
        const take = Math.min(stop - i, maxBytes - collected);
        parts.push(Buffer.from(chunk.subarray(i, i + take)));
        collected += take;
        if (take < stop - i) {
          truncated = more = true;
          break scan;
        }
      }
      if (nl !== -1) line++;
      i = stop;
    }
  }
  let bytes = Buffer.concat(parts);
  if (truncated) bytes = bytes.subarray(0, completeUtf8(bytes, bytes.length));
  const newlines = bytes.reduce((n, b) => n + (b === 10 ? 1 : 0), 0);
  const lines = newlines + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0);
  // At EOF `line` counts a final empty "line" after a trailing newline; the file has one fewer.
  const totalLines = eof ? (position === 0 ? 0 : lastByte === 10 ? line - 1 : line) : undefined;
  return { text: decoder.decode(bytes), firstLine: startLine, lastLine: startLine + lines - 1, more, truncated, totalLines };
}

/** Length of the longest prefix of buf[0..length) that ends on a complete UTF-8 character. */
function completeUtf8(buf: Uint8Array, length: number): number {
  // Look back at most 3 bytes for the lead byte of a character that may be cut.
  for (let back = 1; back <= Math.min(3, length); back++) {
    const b = buf[length - back];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: keep looking for its lead
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return needed > back ? length - back : length;
  }
  return length;
}
