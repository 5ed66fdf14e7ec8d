/**
 * Content blocks of tool results (spec tools.mdx "Tool Result") and a checker
 * that names the first thing wrong with a block, so a buggy handler can never
 * put an invalid result on the wire.
 */
export interface Annotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  lastModified?: string;
}

interface BlockBase {
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

export interface TextContent extends BlockBase {
  type: 'text';
  text: string;
}
export interface ImageContent extends BlockBase {
  type: 'image';
  data: string;
  mimeType: string;
}
export interface AudioContent extends BlockBase {
  type: 'audio';
  data: string;
  mimeType: string;
}
export interface ResourceLink extends BlockBase {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown>; annotations?: Annotations }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown>; annotations?: Annotations };
export interface EmbeddedResource extends BlockBase {
  type: 'resource';
  resource: ResourceContents;
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A MIME type (type/subtype, parameters allowed), as content blocks and resource definitions must give it. */
export const MIME = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;.*)?$/i;
const URI = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

export function isBase64(s: unknown): boolean {
  return typeof s === 'string' && s.length % 4 === 0 && BASE64.test(s);
}

/** Returns why `block` is not a valid content block, or undefined when it is. */
export function contentBlockProblem(block: unknown): string | undefined {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return 'a content block must be an object';
  const b = block as Record<string, unknown>;
  const annotationsProblem = annotationProblem(b.annotations);
  if (annotationsProblem) return annotationsProblem;
  if (b._meta !== undefined && !isPlainObject(b._meta)) return '"_meta" must be an object';
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? undefined : 'text content needs a string "text"';
    case 'image':
    case 'audio':
      if (!isBase64(b.data)) return `${b.type} content needs base64 "data"`;
      if (typeof b.mimeType !== 'string' || !MIME.test(b.mimeType)) return `${b.type} content needs a "mimeType" such as ${b.type}/png`;
      if (!b.mimeType.toLowerCase().startsWith(`${b.type}/`)) return `${b.type} content must have an ${b.type}/* mimeType (got ${b.mimeType})`;
      return undefined;
    case 'resource_link':
      if (typeof b.uri !== 'string' || !URI.test(b.uri)) return 'resource_link content needs an absolute "uri"';
      if (typeof b.name !== 'string') return 'resource_link content needs a string "name"';
      if (b.mimeType !== undefined && (typeof b.mimeType !== 'string' || !MIME.test(b.mimeType))) return 'resource_link "mimeType" is not a MIME type';
      return undefined;
    case 'resource':
      return resourceProblem(b.resource);
    default:
      return `unknown content type ${JSON.stringify(b.type)}; use text, image, audio, resource_link or resource`;
  }
}

function resourceProblem(r: unknown): string | undefined {
  if (!isPlainObject(r)) return 'embedded resource content needs a "resource" object';
  if (typeof r.uri !== 'string' || !URI.test(r.uri)) return 'embedded resource needs an absolute "uri"';
  if (r.mimeType !== undefined && (typeof r.mimeType !== 'string' || !MIME.test(r.mimeType))) return 'embedded resource "mimeType" is not a MIME type';
  const hasText = typeof r.text === 'string';
  const hasBlob = 'blob' in r;
  if (hasText === hasBlob) return 'embedded resource needs exactly one of "text" or "blob"';
  if (hasBlob && !isBase64(r.blob)) return 'embedded resource "blob" must be base64';
  return annotationProblem(r.annotations);
}

function annotationProblem(a: unknown): string | undefined {
  if (a === undefined) return undefined;
  if (!isPlainObject(a)) return '"annotations" must be an object';
  if (a.audience !== undefined && (!Array.isArray(a.audience) || !a.audience.every((x) => x === 'user' || x === 'assistant'))) {
    return '"annotations.audience" must list "user" and/or "assistant"';
  }
  if (a.priority !== undefined && (typeof a.priority !== 'number' || a.priority < 0 || a.priority > 1)) {
    return '"annotations.priority" must be a number from 0 to 1';
  }
  if (a.lastModified !== undefined && typeof a.lastModified !== 'string') return '"annotations.lastModified" must be an ISO 8601 string';
  return undefined;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
