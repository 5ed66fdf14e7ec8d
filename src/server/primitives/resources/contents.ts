import { isBase64, isPlainObject } from '../../../protocol/content.js';
import type { ReadReturn } from './resource.js';

export interface WireContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

/** Undefined: the resource does not exist. A string: why the read's value is not valid contents (a server bug). */
export type NormalizedContents = { ok: true; contents: WireContents[]; bytes: number } | { ok: false; problem: string } | undefined;

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Turns what a read returned into `contents` (resources.mdx "Resource
 * Contents"): text stays text, bytes become a base64 blob, and each item is
 * checked (exactly one of text and blob, a base64 blob, an absolute uri), so
 * a buggy read never puts an invalid result on the wire.
 */
export function normalizeContents(value: ReadReturn, uri: string, mimeType: string | undefined): NormalizedContents {
  if (value === undefined || value === null) return undefined;
  // Text (the usual read): one item, valid as it is, built at once.
  if (typeof value === 'string') return { ok: true, contents: [textEntry(uri, mimeType, value)], bytes: Buffer.byteLength(value) };
  const items = Array.isArray(value) ? value : [value];
  const contents: WireContents[] = [];
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as unknown;
    let entry: WireContents;
    if (typeof item === 'string') {
      entry = textEntry(uri, mimeType, item);
    } else if (item instanceof Uint8Array) {
      entry = { uri, mimeType: mimeType ?? 'application/octet-stream', blob: Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('base64') };
    } else if (isPlainObject(item)) {
      const hasText = 'text' in item && item.text !== undefined;
      const hasBlob = 'blob' in item && item.blob !== undefined;
      if (hasText === hasBlob) return { ok: false, problem: `contents[${i}] needs exactly one of "text" and "blob"` };
      if (hasText && typeof item.text !== 'string') return { ok: false, problem: `contents[${i}].text must be a string` };
      const itemUri = item.uri ?? uri;
      if (typeof itemUri !== 'string' || !URI.test(itemUri)) return { ok: false, problem: `contents[${i}].uri must be an absolute URI` };
      if (item.mimeType !== undefined && typeof item.mimeType !== 'string') return { ok: false, problem: `contents[${i}].mimeType must be a string` };
      if (item._meta !== undefined && !isPlainObject(item._meta)) return { ok: false, problem: `contents[${i}]._meta must be an object` };
      entry = { uri: itemUri };
      const itemMime = (item.mimeType as string | undefined) ?? mimeType;
      if (itemMime !== undefined) entry.mimeType = itemMime;
      if (hasText) entry.text = item.text as string;
      else if (item.blob instanceof Uint8Array) entry.blob = Buffer.from(item.blob.buffer, item.blob.byteOffset, item.blob.byteLength).toString('base64');
      else if (isBase64(item.blob)) entry.blob = item.blob as string;
      else return { ok: false, problem: `contents[${i}].blob must be base64 text or bytes` };
      if (item._meta !== undefined) entry._meta = item._meta as Record<string, unknown>;
    } else {
      return { ok: false, problem: `contents[${i}] must be a string, bytes or a { text } / { blob } object` };
    }
    bytes += entry.text !== undefined ? Buffer.byteLength(entry.text) : entry.blob!.length;
    contents.push(entry);
  }
  return { ok: true, contents, bytes };
}

/** A read's text as its contents item: the resource's MIME type, or text/plain. */
function textEntry(uri: string, mimeType: string | undefined, text: string): WireContents {
  return { uri, mimeType: mimeType ?? 'text/plain', text };
}
