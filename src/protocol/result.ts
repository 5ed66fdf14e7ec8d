import { META, type Implementation } from './meta.js';
import type { Era } from './versions.js';

/**
 * Era-specific result shapes. Modern results carry `resultType` and identify
 * the server in `_meta` (spec 2026-07-28 basic/index "Per-response protocol
 * fields"); legacy results are plain objects.
 */
export function shapeResult(era: Era, result: Record<string, unknown>, serverInfo: Implementation): Record<string, unknown> {
  if (era === 'legacy') return result;
  const meta = result._meta as Record<string, unknown> | undefined;
  return {
    resultType: 'complete',
    ...result,
    _meta: meta ? { ...meta, [META.serverInfo]: serverInfo } : { [META.serverInfo]: serverInfo },
  };
}

/**
 * The JSON text of a result's `structuredContent`, set where the pipeline has serialized it
 * already (to measure the result): the encoder writes that text instead of serializing the
 * value again (a call with a 9 KiB structured result took a third fewer instructions). A symbol
 * key: JSON.stringify and Object.keys skip it, so it never reaches the wire. Only set on a
 * result object made for this one call (a handler may return the same object twice).
 */
export const STRUCTURED_JSON = Symbol('structuredContent as JSON');
export interface StructuredJson {
  [STRUCTURED_JSON]?: string;
}

/**
 * Serializes results for an era. A modern result without its own `_meta` or `resultType`
 * (the common case), and any result carrying its structured JSON, is written member by
 * member: modern members go between `resultType` and the pre-serialized server identity,
 * instead of being copied into a new object first.
 * (Slicing the braces off the serialized result would do too, but V8 builds a large JSON
 * text in pieces and slicing joins them: one more copy of a 1 MiB result, ~1 ms.)
 */
export class ResultEncoder {
  private readonly metaJson: string;

  constructor(private readonly serverInfo: Implementation) {
    this.metaJson = JSON.stringify({ [META.serverInfo]: serverInfo });
  }

  encode(era: Era, result: Record<string, unknown> & StructuredJson): string {
    const structuredJson = result[STRUCTURED_JSON];
    if (era === 'legacy' && structuredJson === undefined) return JSON.stringify(result);
    if (era === 'modern' && (result._meta !== undefined || result.resultType !== undefined)) return JSON.stringify(shapeResult(era, result, this.serverInfo));
    let members = '';
    for (const key of Object.keys(result)) {
      const value = key === 'structuredContent' && structuredJson !== undefined ? structuredJson : jsonOfMember(result[key]);
      if (value === undefined) continue; // as JSON.stringify skips undefined members
      const member = memberPrefix(key) + value;
      members = members === '' ? member : `${members},${member}`;
    }
    return this.wrap(era, members);
  }

  /** A result whose members are already JSON text (`"tools":[…],"ttlMs":0`), shaped for the era. */
  wrap(era: Era, membersJson: string): string {
    if (era === 'legacy') return `{${membersJson}}`;
    return `{"resultType":"complete",${membersJson ? `${membersJson},` : ''}"_meta":${this.metaJson}}`;
  }
}

/** Member names seen, each with its JSON prefix (`"content":`): a result's names repeat, and are scanned and quoted once. */
const memberPrefixes = new Map<string, string>();
/** Names kept at most: results carry few, but a gateway relays an upstream's, which may make up any. */
const MAX_MEMBER_PREFIXES = 256;

function memberPrefix(key: string): string {
  let prefix = memberPrefixes.get(key);
  if (prefix === undefined) {
    prefix = `${quoted(key)}:`;
    if (memberPrefixes.size < MAX_MEMBER_PREFIXES) memberPrefixes.set(key, prefix);
  }
  return prefix;
}

/** Cache hints every modern list and discover result must carry (caching.mdx). */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** Longest string quoted by quoted()'s own scan; a longer one is left to JSON.stringify, which scans faster. */
const MAX_SCANNED_CHARS = 256;

/**
 * `text` as JSON.stringify writes it: quoted at once when it holds no
 * character JSON escapes (a result's member names, short values like a
 * prompt's description or a cache scope). Each JSON.stringify call sets up a
 * builder of its own (a few hundred instructions for a short string: a third
 * of a prompts/get result's encoding was spent so).
 */
function quoted(text: string): string {
  return isPlain(text) ? `"${text}"` : JSON.stringify(text);
}

/**
 * Whether JSON.stringify writes `text` as it is between quotes: no control character, `"`, `\`
 * or surrogate (a lone one is written as \uXXXX), and short enough for this scan (a longer one
 * is left to JSON.stringify, which scans faster). Callers that know their strings are plain write
 * the quotes into their own template: each concatenation is a string made.
 */
function isPlain(text: string): boolean {
  if (text.length > MAX_SCANNED_CHARS) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/** A result member's JSON text, as JSON.stringify writes it (undefined: a member it skips); strings and finite numbers without its call. */
function jsonOfMember(value: unknown): string | undefined {
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    const json = textListJson(value);
    if (json !== undefined) return json;
  }
  return JSON.stringify(value);
}

/**
 * The JSON of a list of the plain text entries results carry most (a tool's text blocks, a
 * prompt's text messages, a read's text contents), written by hand; undefined for any other
 * list, left to JSON.stringify. On Node 20, JSON.stringify takes its slow path for each object (a
 * lookup of `toJSON` on each), and a prompt's or a read's result nests more of them than a
 * tool's. Only objects JSON.stringify would write the same way are taken (plain, no `toJSON` of
 * their own or inherited, these members exactly and in this order), each member read once, in
 * JSON.stringify's order. (A list with an entry of any other form is written by JSON.stringify,
 * which reads the entries before it again: a getter there runs twice.)
 */
function textListJson(list: unknown[]): string | undefined {
  // A long list is left to JSON.stringify: were its last entry of another form, all of it would be written twice.
  if (list.length === 0 || list.length > 8 || OBJECT_PROTO.toJSON !== undefined) return undefined;
  let json: string | undefined;
  for (let i = 0; i < list.length; i++) {
    const entry = textEntryJson(list[i]);
    if (entry === undefined) return undefined;
    json = json === undefined ? entry : `${json},${entry}`;
  }
  return `[${json}]`;
}

/** One entry of textListJson's list: `{type:"text",text}`, `{role,content:{type:"text",text}}` or `{uri,mimeType,text}`. */
function textEntryJson(entry: unknown): string | undefined {
  if (!isBareObject(entry)) return undefined;
  const keys = Object.keys(entry);
  if (hasMembers(keys, 'type', 'text')) {
    const text = textOf(entry);
    if (text === undefined) return undefined;
    return isPlain(text) ? `{"type":"text","text":"${text}"}` : `{"type":"text","text":${JSON.stringify(text)}}`;
  }
  if (hasMembers(keys, 'role', 'content')) {
    const role = entry.role;
    const content = entry.content;
    if (typeof role !== 'string' || !isBareObject(content) || !hasMembers(Object.keys(content), 'type', 'text')) return undefined;
    const text = textOf(content);
    if (text === undefined) return undefined;
    if (role === 'user' && isPlain(text)) return `{"role":"user","content":{"type":"text","text":"${text}"}}`;
    return `{"role":${quoted(role)},"content":{"type":"text","text":${quoted(text)}}}`;
  }
  if (hasMembers(keys, 'uri', 'mimeType', 'text')) {
    const { uri, mimeType, text } = entry;
    if (typeof uri !== 'string' || typeof mimeType !== 'string' || typeof text !== 'string') return undefined;
    if (isPlain(uri) && isPlain(mimeType) && isPlain(text)) return `{"uri":"${uri}","mimeType":"${mimeType}","text":"${text}"}`;
    return `{"uri":${quoted(uri)},"mimeType":${quoted(mimeType)},"text":${quoted(text)}}`;
  }
  return undefined;
}

/** Whether an object's own enumerable members are `names`, exactly and in this order. */
function hasMembers(keys: string[], ...names: string[]): boolean {
  if (keys.length !== names.length) return false;
  for (let i = 0; i < names.length; i++) if (keys[i] !== names[i]) return false;
  return true;
}

/** A text block's text (its members checked by the caller: `type`, then `text`, each read once); undefined unless `type` is "text" and `text` a string. */
function textOf(block: Record<string, unknown>): string | undefined {
  const type = block.type;
  const text = block.text;
  return type === 'text' && typeof text === 'string' ? text : undefined;
}

const OBJECT_PROTO = Object.prototype as { toJSON?: unknown };

/** A plain object JSON.stringify writes member by member: Object's prototype, no `toJSON` of its own. */
function isBareObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === OBJECT_PROTO && !Object.hasOwn(value, 'toJSON');
}
