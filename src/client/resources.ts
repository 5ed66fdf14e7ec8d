import { isBase64, isPlainObject, type ResourceContents } from '../protocol/content.js';
import { ProtocolViolationError } from './errors.js';

/** What `resources/read` returned: the resource's contents (text or base64 blob), one or more. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Record<string, unknown>;
}

/** resources.mdx "Reading Resources": checks the shape before anything reaches the caller. */
export function readResourceResult(result: Record<string, unknown>): ReadResourceResult {
  if (!Array.isArray(result.contents)) throw new ProtocolViolationError('resources/read: the result has no "contents" array');
  result.contents.forEach((item, i) => {
    const problem = contentsProblem(item);
    if (problem) throw new ProtocolViolationError(`resources/read: contents[${i}] is invalid: ${problem}`);
  });
  if (result._meta !== undefined && !isPlainObject(result._meta)) throw new ProtocolViolationError('resources/read: "_meta" must be an object');
  return { contents: result.contents as ResourceContents[], ...(result._meta ? { _meta: result._meta as Record<string, unknown> } : {}) };
}

function contentsProblem(item: unknown): string | undefined {
  if (!isPlainObject(item)) return 'it must be an object';
  if (typeof item.uri !== 'string') return '"uri" must be a string';
  if (item.mimeType !== undefined && typeof item.mimeType !== 'string') return '"mimeType" must be a string';
  const hasText = typeof item.text === 'string';
  const hasBlob = item.blob !== undefined;
  if (hasText === hasBlob) return 'it needs exactly one of "text" (a string) and "blob" (base64)';
  if (hasBlob && !isBase64(item.blob)) return '"blob" must be base64';
  return undefined;
}
