import type { FileHandle } from 'node:fs/promises';
import { openForRead, readFully } from '../../policy/path-io.js';
import { PathError, quote } from '../../policy/path-errors.js';
import { defineTool, ToolError, type Tool, type ToolResult } from '../../server/tool.js';
import type { ContentBlock } from '../../protocol/content.js';
import { pathProperty } from '../path-property.js';
import { sniff, SNIFF_BYTES } from './content-type.js';
import { formatBytes, type FsSettings } from './options.js';
import { readByteWindow, readLineWindow } from './text-window.js';

interface ReadArgs {
  path: string;
  mode?: 'auto' | 'text' | 'base64';
  offset?: number;
  max_bytes?: number;
  start_line?: number;
  end_line?: number;
}

/** read_file: text by byte or line window, images as image blocks, other binary only on request. */
export function readFileTool(s: FsSettings): Tool {
  const { sandbox } = s;
  return defineTool({
    name: 'read_file',
    title: 'Read file',
    description:
      'Reads a file inside the workspace: UTF-8 text (whole, from a byte offset, or a range of lines), an image (PNG, JPEG, GIF, WebP, BMP) as an image, or other binary data as base64 when mode is "base64". ' +
      `Use it to look at a file's content; use file_info for its size and list_directory or search_files to find it. At most ${formatBytes(sandbox.maxReadBytes)} per call; a longer text says where to continue. No side effects.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: pathProperty(sandbox, 'The file to read'),
        mode: {
          type: 'string',
          enum: ['auto', 'text', 'base64'],
          default: 'auto',
          description:
            '"auto": text, or an image block for images, and binary files refused; "text": decode as UTF-8 whatever it holds; "base64": the raw bytes as a base64 resource.',
        },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'Byte offset to start at (text and base64). Not with start_line/end_line.' },
        max_bytes: { type: 'integer', minimum: 1, maximum: sandbox.maxReadBytes, default: s.defaultReadBytes, description: 'Most bytes to return.' },
        start_line: { type: 'integer', minimum: 1, description: 'First line to return, 1-based (text only).' },
        end_line: { type: 'integer', minimum: 1, description: 'Last line to return, inclusive (text only; default: to the end, within max_bytes).' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args: ReadArgs, ctx) => readFile(s, args, ctx.signal),
  });
}

/** The read: which window of which kind of content, by the file's first bytes and the mode asked for. */
async function readFile(s: FsSettings, args: ReadArgs, signal: AbortSignal) {
  const { sandbox } = s;
  const lines = args.start_line !== undefined || args.end_line !== undefined;
  if (lines && args.offset) throw new ToolError('Give either offset or start_line/end_line, not both.');
  if (args.start_line !== undefined && args.end_line !== undefined && args.end_line < args.start_line) {
    throw new ToolError(`end_line (${args.end_line}) is before start_line (${args.start_line}).`);
  }
  const target = await sandbox.resolve(args.path);
  if (target.stat?.isDirectory()) throw new PathError(`${quote(target.display)} is a directory; use list_directory to see what it holds.`, 'EISDIR');
  const { handle, stat } = await openForRead(target);
  try {
    const maxBytes = Math.min(args.max_bytes ?? s.defaultReadBytes, sandbox.maxReadBytes);
    const offset = args.offset ?? 0;
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size));
    await readFully(handle, head, 0);
    const kind = sniff(head, target.display);
    const mode = args.mode ?? 'auto';
    // Awaited here: the handle closes in `finally` only once the read is done.
    if (mode === 'base64') return await readBase64(handle, target.display, kind, { offset, maxBytes, size: stat.size, lines });
    if (mode === 'auto' && kind.kind === 'image') {
      if (stat.size > sandbox.maxReadBytes)
        throw new ToolError(`${quote(target.display)} is an image of ${formatBytes(stat.size)}, over the ${formatBytes(sandbox.maxReadBytes)} read limit.`);
      const data = Buffer.alloc(stat.size);
      await readFully(handle, data, 0);
      return { content: [{ type: 'image', data: data.toString('base64'), mimeType: kind.mimeType }] };
    }
    if (mode === 'auto' && kind.kind === 'binary') {
      throw new ToolError(
        `${quote(target.display)} is a binary file (${formatBytes(stat.size)}, ${kind.mimeType}), not text. Pass mode: "base64" to get its bytes, or mode: "text" to decode it anyway.`,
      );
    }
    if (lines) return await readLines(handle, target.display, args, maxBytes, signal);
    if (offset > stat.size) throw new ToolError(`offset ${offset} is past the end of ${quote(target.display)} (${stat.size} bytes).`);
    const w = await readByteWindow(handle, stat.size, offset, maxBytes);
    return withNote(
      [{ type: 'text', text: w.text }],
      w.end < stat.size ? `Bytes ${w.start}–${w.end} of ${stat.size}; continue with offset: ${w.end}.` : undefined,
    );
  } finally {
    await handle.close();
  }
}

/** mode "base64": the raw bytes of a byte window as a resource, with where to continue. */
async function readBase64(
  handle: FileHandle,
  display: string,
  kind: ReturnType<typeof sniff>,
  window: { offset: number; maxBytes: number; size: number; lines: boolean },
) {
  const { offset, maxBytes, size, lines } = window;
  if (lines) throw new ToolError('start_line/end_line apply to text; with mode "base64" use offset and max_bytes.');
  const buf = Buffer.alloc(Math.max(0, Math.min(maxBytes, size - offset)));
  await readFully(handle, buf, offset);
  const mimeType = kind.kind === 'text' ? 'text/plain' : kind.mimeType;
  const content: ContentBlock[] = [{ type: 'resource', resource: { uri: resourceUri(display), mimeType, blob: buf.toString('base64') } }];
  return withNote(
    content,
    offset + buf.length < size ? `Bytes ${offset}–${offset + buf.length} of ${size}; continue with offset: ${offset + buf.length}.` : undefined,
  );
}

/** start_line/end_line: a window of whole lines, with where to continue. */
async function readLines(handle: FileHandle, display: string, args: ReadArgs, maxBytes: number, signal: AbortSignal) {
  const start = args.start_line ?? 1;
  const w = await readLineWindow(handle, start, args.end_line, maxBytes, signal);
  if (w.lastLine < w.firstLine && w.totalLines !== undefined) {
    return `${quote(display)} has only ${w.totalLines} line${w.totalLines === 1 ? '' : 's'}; start_line ${start} is past its end.`;
  }
  const note = w.truncated
    ? `Stopped at max_bytes inside line ${w.lastLine}; raise max_bytes or continue with start_line: ${w.lastLine}.`
    : w.more
      ? `Lines ${w.firstLine}–${w.lastLine}; the file goes on: continue with start_line: ${w.lastLine + 1}.`
      : undefined;
  return withNote([{ type: 'text', text: w.text }], note);
}

/** A note about a partial read goes in its own block, so the content block is exactly the file's. */
function withNote(content: ContentBlock[], note: string | undefined): ToolResult {
  return { content: note ? [...content, { type: 'text', text: `[${note}]` }] : content };
}

/** A URI naming the file without revealing where the root is. */
export function resourceUri(display: string): string {
  return `toolwright-fs:///${display.split('/').map(encodeURIComponent).join('/')}`;
}
