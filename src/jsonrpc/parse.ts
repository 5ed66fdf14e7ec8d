import { ErrorCode, RpcError } from './errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from './types.js';

export type ParsedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse };

/**
 * Deepest nesting of arrays and objects a message may have, envelope
 * included. JSON.parse builds any depth it is given (a 4 MiB line of `[`
 * is two million arrays, ~100 MB), and code that walks values recursively
 * (validation, redaction, serialization) would then exhaust the stack.
 */
export const MAX_JSON_DEPTH = 128;

interface ParseOptions {
  /**
   * Refuse strings holding an unpaired surrogate escape (`"\\ud800"`): valid
   * JSON grammar, but not Unicode text; written to a file or sent on, it turns
   * into U+FFFD. A server executing what it receives sets it; a client reading
   * a sloppy server's answer need not.
   */
  refuseLoneSurrogates?: boolean;
}

/** What a server applies to every message a client sends it. */
export const INCOMING_REQUESTS: ParseOptions = { refuseLoneSurrogates: true };

/**
 * Parses one JSON-RPC message and classifies it. Throws RpcError with
 * ParseError or InvalidRequest; `data.id` carries the id when it could be read.
 * What would only be refused after parsing anyway (a batch, excessive
 * nesting) is refused before JSON.parse allocates anything for it.
 */
export function parseMessage(text: string, options?: ParseOptions): ParsedMessage {
  return classifyMessage(parseJson(text, options));
}

/**
 * Parses one message's JSON with the limits every message gets (no batch, no
 * excessive nesting, optionally no lone surrogate); the value is not yet
 * known to be JSON-RPC (`messageKind` says). Throws RpcError with ParseError
 * or InvalidRequest.
 */
export function parseJson(text: string, options?: ParseOptions): unknown {
  if (firstCharCode(text) === 0x5b) throw batchRefused();
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    throw new RpcError(ErrorCode.ParseError, `Parse error: the message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RpcError(ErrorCode.ParseError, 'Parse error: the message is not valid JSON');
  }
  // Only a message that spells a surrogate escape can hold a lone one: most are never walked.
  if (options?.refuseLoneSurrogates && text.indexOf('\\u') !== -1 && SURROGATE_ESCAPE.test(text) && !wellFormed(value)) {
    throw new RpcError(ErrorCode.ParseError, 'Parse error: a string holds an unpaired surrogate escape (\\uD800-\\uDFFF), which is not Unicode text');
  }
  return value;
}

export function classifyMessage(value: unknown): ParsedMessage {
  return { kind: messageKind(value), message: value } as ParsedMessage;
}

/**
 * What a JSON-RPC message is, checked (throws RpcError InvalidRequest, with
 * `data.id` when the id could be read). Allocates nothing: the server
 * connection classifies every message it is handed, parsed or not.
 */
export function messageKind(value: unknown): ParsedMessage['kind'] {
  if (Array.isArray(value)) throw batchRefused();
  if (value === null || typeof value !== 'object') {
    throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: a JSON-RPC message must be an object');
  }
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') {
    throw invalid('"jsonrpc" must be "2.0"', m.id);
  }
  const hasId = 'id' in m;
  if (typeof m.method === 'string') {
    if (m.params !== undefined && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params))) {
      throw invalid('"params" must be an object', m.id);
    }
    if (!hasId) return 'notification';
    if (!isRequestId(m.id)) throw invalid('"id" must be a string or an integer (never null)', undefined);
    return 'request';
  }
  if ('method' in m) throw invalid('"method" must be a string', m.id);
  if (hasId && ('result' in m || 'error' in m)) return 'response';
  throw invalid('the message is neither a request, a notification nor a response', m.id);
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

function invalid(why: string, id: unknown): RpcError {
  return new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${why}`, isRequestId(id) ? { id } : undefined);
}

function batchRefused(): RpcError {
  return new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not supported; send one message at a time');
}

/** The first character that is not JSON whitespace (NaN for none). */
function firstCharCode(text: string): number {
  let i = 0;
  let c = text.charCodeAt(0);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  return c;
}

/**
 * True when arrays and objects nest deeper than `max`. A message with no
 * more than `max` brackets cannot (the common case, decided by a few native
 * indexOf calls: ~0.1 µs for a typical call). Otherwise one pass, string
 * contents skipped with indexOf, so a message that is mostly one long string
 * (file contents) costs native scans. Garbage is not judged here: JSON.parse
 * refuses it next.
 */
function nestingExceeds(text: string, max: number): boolean {
  if (text.length <= max || atMostOpeners(text, max)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i === -1) return false;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** At most `max` opening brackets anywhere (inside strings too, so never a wrong "at most"). */
function atMostOpeners(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > max) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > max) return false;
  return true;
}

/** Index of the quote that ends the string opened at `open`, or -1. Linear: each backslash run is counted once. */
function closingQuote(text: string, open: number): number {
  let q = text.indexOf('"', open + 1);
  while (q !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

/** A \\uD800-\\uDFFF escape (or text that looks like one; the parsed value decides). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** A high surrogate with no low one after it, or a low one with no high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** No string in the value (keys included) holds an unpaired surrogate. Depth is bounded by MAX_JSON_DEPTH. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return !LONE_SURROGATE.test(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(wellFormed);
  for (const key in value) {
    if (LONE_SURROGATE.test(key) || !wellFormed((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}
