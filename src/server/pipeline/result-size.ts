import type { ContentBlock } from '../../protocol/content.js';
import { STRUCTURED_JSON, type StructuredJson } from '../../protocol/result.js';
import { callerKeyOf } from '../exchange.js';
import { ResultTooLargeError, type ResultStore, type StoredContent } from '../../state/result-store.js';
import { StateUnavailableError } from '../../state/redis/connection.js';
import type { ToolResult } from '../tool.js';
import type { Stage, Operation } from './operation.js';
import { errorResult } from './results.js';

const PREVIEW_CHARS = 1_000;

/**
 * Results over the size limit are not truncated blindly: each content block
 * is kept in the result store and replaced by a short preview plus a
 * `resource_link` the client can read with `resources/read` until it expires.
 */
export function resultSizeStage(maxBytes: number, store: ResultStore): Stage {
  return async (call, next) => {
    const outcome = await next();
    if (!outcome || !('content' in outcome)) return outcome;
    const result = withStructuredJson(outcome);
    if (estimateBytes(result, maxBytes) <= maxBytes || resultBytes(result) <= maxBytes) return result;
    const previewChars = previewLength(result.content, maxBytes);
    let content: ContentBlock[];
    try {
      content = (await Promise.all(result.content.map((block, i) => spill(block, i, call, store, previewChars)))).flat();
    } catch (err) {
      return unstored(call, err);
    }
    const slim: ToolResult = { ...result, content };
    if (resultBytes(slim) <= maxBytes) return slim;
    call.status = 'refused';
    call.reason = 'result_too_large';
    if (result[STRUCTURED_JSON] === undefined) {
      // Only a limit smaller than a handful of links gets here: nothing smaller can be sent.
      return errorResult(
        `The result of ${call.tool.name} does not fit the ${maxBytes}-byte limit even as links to stored content (${content.length} blocks). Ask for less data, or raise limits.maxResultBytes.`,
      );
    }
    // Even by reference it does not fit: the structured content itself is too large.
    let stored: StoredContent;
    try {
      stored = await store.put({ mimeType: 'application/json', text: result[STRUCTURED_JSON] }, callerKeyOf(call.exchange), 'structured.json');
    } catch (err) {
      return unstored(call, err);
    }
    const refusal = errorResult(
      `The structured result of ${call.tool.name} is ${stored.bytes} bytes, over the ${maxBytes}-byte limit; it is stored at ${stored.uri} for ${Math.round(store.ttlMs / 1000)} s (read it with resources/read). Ask for less data.`,
    );
    refusal.content.push(link(stored.uri, 'structured.json', stored.mimeType, stored.bytes, store));
    return refusal;
  };
}

/**
 * The result is too large to send and the store cannot keep it (shared state unreachable, or
 * a store's own bound): the tool has run, so its caller gets an isError result saying so
 * rather than a link to nothing. The store's message is meant for clients (no address, no secret).
 */
function unstored(call: Operation, err: unknown): ToolResult {
  call.status = 'refused';
  call.reason = 'result_too_large';
  // Only messages written for the caller pass; anything else (a driver's error) stays out.
  const why = err instanceof StateUnavailableError || err instanceof ResultTooLargeError ? err.message : 'the result store failed';
  return errorResult(
    `The result of ${call.tool.name} is too large to send inline and could not be stored for resources/read: ${why}. It ran; retry later, or ask for less data.`,
  );
}

function resultBytes(result: ToolResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}

/**
 * The result with its structuredContent serialized once, here, where it is measured; the
 * encoder writes that text. A copy, since the handler may return the same object again.
 */
function withStructuredJson(result: ToolResult & StructuredJson): ToolResult & StructuredJson {
  if (result.structuredContent === undefined || result[STRUCTURED_JSON] !== undefined) return result;
  return { ...result, [STRUCTURED_JSON]: JSON.stringify(result.structuredContent) };
}

/**
 * An upper-bound-ish size without serializing the whole result (that happens
 * once, when the response is written); exact only when it may be over.
 */
function estimateBytes(result: ToolResult & StructuredJson, maxBytes: number): number {
  let bytes = 256;
  for (const block of result.content) {
    if (block.type === 'text') bytes += textBytes(block.text, maxBytes) * 1.1 + 32;
    else if (block.type === 'image' || block.type === 'audio') bytes += block.data.length + 64;
    else if (block.type === 'resource') bytes += ('text' in block.resource ? textBytes(block.resource.text, maxBytes) * 1.1 : block.resource.blob.length) + 128;
    else bytes += 512;
  }
  const structuredJson = result[STRUCTURED_JSON];
  if (structuredJson !== undefined) bytes += Buffer.byteLength(structuredJson);
  return bytes;
}

/**
 * A text's UTF-8 size, or a bound on it when that settles the question: UTF-8 takes at most 3
 * bytes per UTF-16 unit, so a text whose bound is under the limit is not scanned (measuring a
 * 1 MiB text took ~0.3 ms of a ~13 ms HTTP echo).
 */
function textBytes(text: string, maxBytes: number): number {
  const bound = text.length * 3;
  return bound * 1.1 <= maxBytes ? bound : Buffer.byteLength(text);
}

/**
 * Characters of each text's preview: PREVIEW_CHARS, unless the limit is so small that the
 * previews themselves would not fit (each text gets a sixth of the limit over its blocks: 3 bytes
 * a character at worst, the other half for its link and the envelope).
 */
function previewLength(content: readonly ContentBlock[], maxBytes: number): number {
  const texts = content.reduce((n, block) => n + (block.type === 'text' ? 1 : 0), 0);
  return Math.min(PREVIEW_CHARS, Math.floor(maxBytes / (6 * Math.max(1, texts))));
}

async function spill(block: ContentBlock, index: number, call: Operation, store: ResultStore, previewChars: number): Promise<ContentBlock[]> {
  const principal = callerKeyOf(call.exchange);
  switch (block.type) {
    case 'text': {
      if (block.text.length <= previewChars) return [block];
      const stored = await store.put({ mimeType: 'text/plain', text: block.text }, principal, `output-${index}.txt`);
      return [
        { type: 'text', text: `${block.text.slice(0, previewChars)}\n… [${stored.bytes} bytes in all; the full text is at ${stored.uri}]` },
        link(stored.uri, `output-${index}.txt`, 'text/plain', stored.bytes, store),
      ];
    }
    case 'image':
    case 'audio': {
      const stored = await store.put({ mimeType: block.mimeType, blob: block.data }, principal, `${block.type}-${index}`);
      return [link(stored.uri, `${block.type}-${index}`, block.mimeType, stored.bytes, store)];
    }
    case 'resource': {
      const r = block.resource;
      const stored = await store.put(
        { mimeType: r.mimeType ?? 'application/octet-stream', ...('text' in r ? { text: r.text } : { blob: r.blob }) },
        principal,
        `resource-${index}`,
      );
      return [link(stored.uri, r.uri, stored.mimeType, stored.bytes, store)];
    }
    default:
      return [block];
  }
}

function link(uri: string, name: string, mimeType: string, size: number, store: ResultStore): ContentBlock {
  return {
    type: 'resource_link',
    uri,
    name,
    mimeType,
    size,
    description: `Full content (${size} bytes), kept for ${Math.round(store.ttlMs / 1000)} s; fetch it with resources/read.`,
  };
}
