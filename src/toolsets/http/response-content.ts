import type { ContentBlock } from '../../protocol/content.js';
import { isText } from '../text-bytes.js';
import type { HopResponse } from './send.js';

/** How a body is shown to the model. */
type BodyKind = 'text' | 'image' | 'binary';

/**
 * Images a model client can display; SVG is XML text, so it is shown as text
 * (and a script-bearing SVG is never handed to a renderer as an image).
 */
const IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp', 'image/avif', 'image/x-icon', 'image/vnd.microsoft.icon']);
const TEXT_APPLICATION = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/x-www-form-urlencoded',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/graphql',
  'application/sql',
  'application/x-ndjson',
]);

interface MediaType {
  /** `type/subtype` in lower case, or '' when the response had none. */
  essence: string;
  charset?: string;
}

function parseMediaType(header: string | undefined): MediaType {
  if (!header) return { essence: '' };
  const [essence, ...params] = header.split(';');
  const charset = params.map((p) => p.trim().split('=')).find(([k]) => k.trim().toLowerCase() === 'charset')?.[1];
  return { essence: essence.trim().toLowerCase(), charset: charset?.trim().replace(/^"|"$/g, '') };
}

/** Text for textual types (text/*, JSON, XML, JavaScript, …), an image block for images, else binary. */
export function bodyKind(type: MediaType, body: Buffer): BodyKind {
  const { essence } = type;
  if (essence.startsWith('text/') || TEXT_APPLICATION.has(essence) || essence.endsWith('+json') || essence.endsWith('+xml')) return 'text';
  if (IMAGES.has(essence)) return 'image';
  // No declared type: show it as text only if it decodes as UTF-8 without NULs
  // (a body cut at the size cap may end inside a character; isText allows that).
  if (essence === '' && isText(body)) return 'text';
  return 'binary';
}

/** Decodes with the declared charset; an unknown label falls back to UTF-8 (never an exception). */
function decodeText(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * The content blocks of a response: a summary line, then the body. A
 * truncated image or binary body is never sent half (it would be corrupt);
 * a truncated text body is sent with a note saying so. Bodies above the
 * server's result limit travel by resource_link (the result-size stage).
 */
export function responseBlocks(res: HopResponse, summary: string, uri: string, maxBytes: number): ContentBlock[] {
  const type = parseMediaType(headerText(res.headers['content-type']));
  if (res.body.length === 0) return [{ type: 'text', text: `${summary}\n\n(empty body)` }];
  const kind = bodyKind(type, res.body);
  const cut = `the body is larger than ${maxBytes} bytes`;
  if (kind === 'text') {
    const text = decodeText(res.body, type.charset);
    return [{ type: 'text', text: `${summary}\n\n${text}${res.truncated ? `\n… [truncated: ${cut}; only the first ${maxBytes} bytes are shown]` : ''}` }];
  }
  if (res.truncated) {
    return [{ type: 'text', text: `${summary}\n\n[${kind} body of type ${type.essence || 'unknown'} not shown: ${cut}, the most this server reads]` }];
  }
  if (kind === 'image')
    return [
      { type: 'text', text: summary },
      { type: 'image', data: res.body.toString('base64'), mimeType: type.essence },
    ];
  return [
    { type: 'text', text: `${summary}\n\n[binary body of type ${type.essence || 'unknown'}, ${res.body.length} bytes, attached as a resource]` },
    { type: 'resource', resource: { uri, mimeType: validMime(type.essence), blob: res.body.toString('base64') } },
  ];
}

function validMime(essence: string): string {
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence) ? essence : 'application/octet-stream';
}

export function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
