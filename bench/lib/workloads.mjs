// What the load generator says and what it expects back: raw JSON-RPC per era, and a
// check for EVERY answer (right id, no error, the exact expected text or tool count).

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
const CLIENT_INFO = { name: 'toolwright-bench', version: '1.0.0' };
const MODERN_META = `"_meta":${JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
})}`;

/** `{"jsonrpc":"2.0","id":` + id + rest, pre-encoded so a 1 MiB body is never rebuilt per call. */
class Body {
  constructor(method, paramsInner, era, newline) {
    const params = era === 'modern' ? (paramsInner ? `${paramsInner},${MODERN_META}` : MODERN_META) : paramsInner;
    this.pre = '{"jsonrpc":"2.0","id":';
    const post = `,"method":${JSON.stringify(method)},"params":{${params}}}${newline ? '\n' : ''}`;
    // small bodies stay strings (one write per request); big ones are encoded once, never per call
    this.post = post.length > 65536 ? Buffer.from(post) : post;
  }
  pieces(id) {
    return typeof this.post === 'string' ? [this.pre + id + this.post] : [this.pre, String(id), this.post];
  }
}

/** Text of `bytes` characters, wrapped in lines and with a few characters JSON must escape. */
export function makeText(bytes) {
  const words = 'the quick "brown" fox jumps over the lazy dog; tools\\calls are answered fast. ';
  let s = '';
  while (s.length < bytes) s += words + (s.length % 640 < 80 ? '\n' : '');
  return s.slice(0, bytes);
}

function checkEnvelope(msg, id) {
  if (msg === null || typeof msg !== 'object') throw new Error('answer is not a JSON object');
  if (msg.id !== id) throw new Error(`answer id ${JSON.stringify(msg.id)} does not match request id ${id}`);
  if (msg.error !== undefined) throw new Error(`JSON-RPC error ${msg.error?.code}: ${String(msg.error?.message).slice(0, 200)}`);
  if (msg.result === null || typeof msg.result !== 'object') throw new Error('answer has no result object');
  return msg.result;
}

function checkModern(result, era) {
  if (era === 'modern' && result.resultType !== 'complete') throw new Error(`modern result without resultType "complete" (${result.resultType})`);
}

function checkText(result, expected) {
  if (result.isError === true) throw new Error(`tool result isError: ${String(result.content?.[0]?.text).slice(0, 200)}`);
  const block = result.content?.[0];
  if (block?.type !== 'text') throw new Error('result has no text content block');
  if (block.text !== expected) throw new Error(`unexpected text (${String(block.text).length} chars, expected ${expected.length})`);
}

/**
 * A workload: one "op" is one or more requests (a full tools/list may take several pages).
 * `request(id, state)` gives the body; `check(msg, id, state)` validates the answer and
 * returns the next state, or null when the op is complete.
 */
export function makeWorkload(kind, { era, newline, toolCount = 2 }) {
  const headers = (method, name) =>
    era === 'modern' ? `mcp-protocol-version: ${MODERN}\r\nmcp-method: ${method}\r\n${name ? `mcp-name: ${name}\r\n` : ''}` : '';
  if (kind === 'sum') {
    // a = id, so a canned "3" would fail the check
    const pre = '{"jsonrpc":"2.0","id":';
    const mid = ',"method":"tools/call","params":{"name":"calculate_sum","arguments":{"a":';
    const post = `,"b":2}${era === 'modern' ? `,${MODERN_META}` : ''}}}${newline ? '\n' : ''}`;
    return {
      kind,
      httpHeaders: headers('tools/call', 'calculate_sum'),
      request: (id) => ({ pieces: [pre + id + mid + id + post] }),
      check(msg, id) {
        const result = checkEnvelope(msg, id);
        checkModern(result, era);
        checkText(result, String(id + 2));
        return null;
      },
    };
  }
  if (kind === 'echo1k' || kind === 'echo1m') {
    const text = makeText(kind === 'echo1k' ? 1024 : 1024 * 1024);
    const body = new Body('tools/call', `"name":"echo","arguments":{"text":${JSON.stringify(text)}}`, era, newline);
    return {
      kind,
      httpHeaders: headers('tools/call', 'echo'),
      request: (id) => ({ pieces: body.pieces(id) }),
      check(msg, id) {
        const result = checkEnvelope(msg, id);
        checkModern(result, era);
        checkText(result, text);
        return null;
      },
    };
  }
  if (kind === 'list') {
    const first = new Body('tools/list', '', era, newline);
    return {
      kind,
      httpHeaders: headers('tools/list'),
      request(id, state) {
        if (!state) return { pieces: first.pieces(id) };
        const b = new Body('tools/list', `"cursor":${JSON.stringify(state.cursor)}`, era, newline);
        return { pieces: b.pieces(id) };
      },
      check(msg, id, state) {
        const result = checkEnvelope(msg, id);
        checkModern(result, era);
        const tools = result.tools;
        if (!Array.isArray(tools)) throw new Error('tools/list result has no tools array');
        if (!state && tools[0]?.name !== 'calculate_sum') throw new Error(`first tool is ${tools[0]?.name}, expected calculate_sum`);
        for (const t of tools) if (typeof t?.name !== 'string' || typeof t.inputSchema !== 'object') throw new Error('malformed tool definition');
        const seen = (state?.seen ?? 0) + tools.length;
        if (result.nextCursor !== undefined) {
          if (seen >= toolCount) throw new Error(`nextCursor after all ${toolCount} tools`);
          return { cursor: result.nextCursor, seen };
        }
        if (seen !== toolCount) throw new Error(`tools/list returned ${seen} tools, expected ${toolCount}`);
        return null;
      },
    };
  }
  if (kind === 'page') {
    // One tools/list request per op: the page after the previous op's, back to the first page
    // after the last, so every page of the registry is served in turn (a server whose cost grows
    // with the registry, or with how deep a cursor points, shows it). What it measures is the
    // cost of one page; the tool count is checked at the end of each full pass. The cursor is the
    // workload's own: run it with one slot (load 1), as the page cells do.
    const first = new Body('tools/list', '', era, newline);
    let cursor;
    let seen = 0;
    return {
      kind,
      httpHeaders: headers('tools/list'),
      request(id) {
        if (cursor === undefined) return { pieces: first.pieces(id) };
        return { pieces: new Body('tools/list', `"cursor":${JSON.stringify(cursor)}`, era, newline).pieces(id) };
      },
      check(msg, id) {
        const result = checkEnvelope(msg, id);
        checkModern(result, era);
        const tools = result.tools;
        if (!Array.isArray(tools)) throw new Error('tools/list result has no tools array');
        if (cursor === undefined && tools[0]?.name !== 'calculate_sum') throw new Error(`first tool is ${tools[0]?.name}, expected calculate_sum`);
        for (const t of tools) if (typeof t?.name !== 'string' || typeof t.inputSchema !== 'object') throw new Error('malformed tool definition');
        seen += tools.length;
        if (result.nextCursor !== undefined) {
          if (seen >= toolCount) throw new Error(`nextCursor after all ${toolCount} tools`);
          cursor = result.nextCursor;
        } else {
          if (seen !== toolCount) throw new Error(`tools/list pages returned ${seen} tools, expected ${toolCount}`);
          cursor = undefined;
          seen = 0;
        }
        return null;
      },
    };
  }
  throw new Error(`unknown workload ${kind}`);
}

/** The legacy opening: initialize (answer checked), then notifications/initialized. */
export function initializeRequest(id, newline) {
  const params = `"protocolVersion":"${LEGACY}","capabilities":{},"clientInfo":${JSON.stringify(CLIENT_INFO)}`;
  const b = new Body('initialize', params, 'legacy', newline);
  return { pieces: b.pieces(id) };
}

export function checkInitialize(msg, id) {
  const result = checkEnvelope(msg, id);
  if (typeof result.protocolVersion !== 'string') throw new Error('initialize result has no protocolVersion');
  if (!result.capabilities?.tools) throw new Error('server does not declare the tools capability');
  return result.protocolVersion;
}

export function initializedNotification(newline) {
  return { pieces: [`{"jsonrpc":"2.0","method":"notifications/initialized"}${newline ? '\n' : ''}`] };
}

/** Any request, as the load generator frames it (modern: the era's _meta added to params). */
export function jsonRpc(id, method, params, era, newline) {
  const inner = JSON.stringify(params ?? {}).slice(1, -1);
  return { pieces: new Body(method, inner, era, newline).pieces(id) };
}

/** The HTTP headers a modern request carries (the legacy era's come from its session). */
export function modernHeaders(method, name) {
  return `mcp-protocol-version: ${MODERN}\r\nmcp-method: ${method}\r\n${name ? `mcp-name: ${name}\r\n` : ''}`;
}

export const piecesLength = (pieces) => pieces.reduce((n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : p.length), 0);
