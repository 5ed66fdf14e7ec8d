import { lstatSync, rmSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { CallToolResult, ContentBlock } from '../client/types.js';
import { UsageError, type CliIo } from './errors.js';
import { extensionFor } from './file-extensions.js';
import { oneLine, size } from './format.js';

/** One piece of a result to save: its bytes and what it is. */
export interface OutputContent {
  bytes: Buffer;
  mimeType?: string;
  /** "image", "audio", "blob of test://x", … for the message on stderr. */
  what: string;
}

/** The images, audio and blobs of a tool result (text stays on the terminal). */
export function binaryContentsOfCall(result: CallToolResult): OutputContent[] {
  const out: OutputContent[] = [];
  for (const block of result.content as ContentBlock[]) {
    if (block.type === 'image' || block.type === 'audio') out.push({ bytes: Buffer.from(block.data, 'base64'), mimeType: block.mimeType, what: block.type });
    else if (block.type === 'resource' && 'blob' in block.resource) {
      out.push({ bytes: Buffer.from(block.resource.blob, 'base64'), mimeType: block.resource.mimeType, what: `blob of ${block.resource.uri}` });
    }
  }
  return out;
}

/**
 * The file names for `--output <file>`: one content goes to `<file>` itself;
 * several go to `<file>` as a prefix, its extension replaced by a counter and
 * the content's own (`out.png` → `out-1.png`, `out-2.wav`). Names come from the
 * user and a counter, never from the server.
 */
export function outputPaths(file: string, contents: OutputContent[]): string[] {
  if (contents.length === 1) return [file];
  const ext = extname(file);
  const stem = ext && !file.endsWith('/') ? file.slice(0, -ext.length) : file;
  return contents.map((c, i) => `${stem}-${i + 1}${extensionFor(c.mimeType) ?? (ext || '.bin')}`);
}

/**
 * Writes the contents readable by the user only (0600). An existing file is
 * never replaced unless `force`; every name is checked before the first is
 * written, so a refusal leaves nothing half done. With `force` the old entry
 * is removed first (a symlink is removed, not followed), then created afresh.
 */
export function writeOutputFiles(file: string, contents: OutputContent[], force: boolean | undefined, io: CliIo): void {
  if (!contents.length) {
    io.stderr('toolwright: the result has no image, audio or blob to save; nothing was written\n');
    return;
  }
  const paths = outputPaths(file, contents);
  for (const path of paths) {
    const existing = lstatOrUndefined(path);
    if (existing?.isDirectory())
      throw new UsageError(
        `--output: ${JSON.stringify(path)} is a directory; give a file name${contents.length > 1 ? ' (several contents are saved as <file>-1.<ext>, <file>-2.<ext>, …)' : ''}`,
      );
    if (existing && !force) throw new UsageError(`--output: ${JSON.stringify(path)} exists; nothing was written (--force replaces it)`);
  }
  paths.forEach((path, i) => {
    const { bytes, mimeType, what } = contents[i];
    if (force) rmSync(path, { force: true });
    try {
      // wx: created here, never written through a file or link that appeared meanwhile.
      writeFileSync(path, bytes, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === 'EEXIST'
          ? 'it appeared meanwhile'
          : code === 'ENOENT'
            ? 'no such directory'
            : code === 'EACCES'
              ? 'permission denied'
              : (err as Error).message;
      throw new UsageError(`--output: could not write ${JSON.stringify(path)}: ${why}`);
    }
    io.stderr(`toolwright: wrote ${oneLine(what)}${mimeType ? ` (${oneLine(mimeType)})` : ''}, ${size(bytes.length)}, to ${path}\n`);
  });
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
