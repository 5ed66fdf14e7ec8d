import path from 'node:path';
import { isText } from '../text-bytes.js';

/**
 * What kind of bytes a file holds, decided from its first bytes (magic
 * numbers) rather than trusted from its name: a ".png" full of text is text,
 * and an image is an image whatever it is called. The extension only picks
 * the MIME type of other binary files.
 */
export const SNIFF_BYTES = 8_192;

const IMAGE_MAGIC: Array<{ mimeType: string; test: (b: Uint8Array) => boolean }> = [
  { mimeType: 'image/png', test: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mimeType: 'image/jpeg', test: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { mimeType: 'image/gif', test: (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61 },
  { mimeType: 'image/webp', test: (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && ascii(b, 8, 12) === 'WEBP' },
  { mimeType: 'image/bmp', test: (b) => startsWith(b, [0x42, 0x4d]) && b.length >= 26 },
];

const BINARY_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.mp4': 'video/mp4',
  '.ico': 'image/x-icon',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.sqlite': 'application/vnd.sqlite3',
  '.db': 'application/vnd.sqlite3',
};

type Sniffed = { kind: 'image'; mimeType: string } | { kind: 'text' } | { kind: 'binary'; mimeType: string };

/** Classifies a file from its first bytes (up to SNIFF_BYTES) and its name. */
export function sniff(head: Uint8Array, name: string): Sniffed {
  const ext = path.extname(name).toLowerCase();
  for (const magic of IMAGE_MAGIC) {
    // "BM" starts plenty of text; a BMP is believed only with its extension.
    if (magic.test(head) && (magic.mimeType !== 'image/bmp' || ext === '.bmp')) return { kind: 'image', mimeType: magic.mimeType };
  }
  if (isText(head)) return { kind: 'text' };
  return { kind: 'binary', mimeType: BINARY_TYPES[ext] ?? 'application/octet-stream' };
}

function startsWith(b: Uint8Array, magic: number[]): boolean {
  return b.length >= magic.length && magic.every((x, i) => b[i] === x);
}

function ascii(b: Uint8Array, from: number, to: number): string {
  return b.length >= to ? String.fromCharCode(...b.subarray(from, to)) : '';
}
