import { fromBase64, toBase64, utf8Bytes, utf8Text } from '../io/bytes.js';

/**
 * `x-mcp-header` (spec tools.mdx and streamable-http.mdx "Custom Headers from
 * Tool Parameters"): tool parameters mirrored into `Mcp-Param-{Name}` headers.
 */
export interface HeaderParam {
  /** The name portion of `Mcp-Param-{name}`. */
  name: string;
  /** The chain of `properties` keys leading to the parameter. */
  path: string[];
  type: 'string' | 'integer' | 'boolean';
}

/** An HTTP header name: one RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~). */
export const HEADER_NAME_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TOKEN = HEADER_NAME_TOKEN;
// Keywords whose value is a subschema or an array of them, and those whose value maps names to subschemas.
const SCHEMA_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
];
const SCHEMA_MAP_KEYWORDS = ['patternProperties', 'dependentSchemas', '$defs', 'definitions'];

/** Finds every `x-mcp-header` declaration, or says why the tool definition is invalid. */
export function scanHeaderParams(inputSchema: unknown): { ok: true; params: HeaderParam[] } | { ok: false; reason: string } {
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  let reason: string | undefined;

  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (reason || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child, path, false);
      return;
    }
    const schema = node as Record<string, unknown>;
    if ('x-mcp-header' in schema) {
      const problem = headerDeclarationProblem(schema, path, reachable, seen);
      if (problem) {
        reason = problem;
        return;
      }
      const name = schema['x-mcp-header'] as string;
      seen.add(name.toLowerCase());
      params.push({ name, path, type: schema.type as HeaderParam['type'] });
    }
    const props = schema.properties;
    if (props && typeof props === 'object' && !Array.isArray(props)) {
      for (const [key, child] of Object.entries(props)) visit(child, [...path, key], reachable);
    }
    // Anything below these keywords is not statically reachable: a declaration there is invalid.
    for (const keyword of SCHEMA_KEYWORDS) visit(schema[keyword], path, false);
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = schema[keyword];
      if (map && typeof map === 'object') for (const sub of Object.values(map)) visit(sub, path, false);
    }
  };
  visit(inputSchema, [], true);
  return reason ? { ok: false, reason } : { ok: true, params };
}

function headerDeclarationProblem(schema: Record<string, unknown>, path: string[], reachable: boolean, seen: Set<string>): string | undefined {
  const name = schema['x-mcp-header'];
  const where = path.length ? `property "${path.join('.')}"` : 'the schema root';
  if (typeof name !== 'string' || name === '') return `x-mcp-header on ${where} must be a non-empty string`;
  if (!TOKEN.test(name)) return `x-mcp-header ${JSON.stringify(name)} on ${where} is not a valid HTTP header name token`;
  if (seen.has(name.toLowerCase())) return `x-mcp-header ${JSON.stringify(name)} is declared twice (names are case-insensitive)`;
  if (!reachable || path.length === 0) return `x-mcp-header on ${where} is not statically reachable through "properties" alone`;
  if (schema.type !== 'string' && schema.type !== 'integer' && schema.type !== 'boolean') {
    return `x-mcp-header on ${where} must be on a string, integer or boolean parameter (got ${JSON.stringify(schema.type)})`;
  }
  return undefined;
}

/** The value at a parameter's path in the call arguments, or undefined when absent (or null). */
export function valueAtPath(args: unknown, path: string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node === null ? undefined : node;
}

const SAFE_HEADER_VALUE = /^[\x21-\x7E]([\x20-\x7E\t]*[\x21-\x7E])?$/;
const SENTINEL = /^=\?base64\?(.*)\?=$/;

/** Encodes a value for a header (streamable-http.mdx "Value Encoding"). */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = typeof value === 'string' ? value : String(value);
  if (SAFE_HEADER_VALUE.test(text) && !SENTINEL.test(text)) return text;
  return `=?base64?${toBase64(utf8Bytes(text))}?=`;
}

/** Decodes a header value; undefined when it carries invalid characters or bad base64. */
export function decodeHeaderValue(raw: string): string | undefined {
  const m = SENTINEL.exec(raw);
  if (!m) return raw === '' || SAFE_HEADER_VALUE.test(raw) ? raw : undefined;
  const b64 = m[1];
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  return utf8Text(fromBase64(b64));
}

/** Whether a decoded header value matches the argument value in the body. */
export function headerMatchesValue(decoded: string, value: unknown): boolean {
  if (typeof value === 'string') return decoded === value;
  if (typeof value === 'boolean') return decoded === String(value);
  if (typeof value === 'number') return decoded.trim() !== '' && Number(decoded) === value;
  return false;
}

/**
 * Methods whose `Mcp-Name` header mirrors `params.name` or `params.uri` (streamable-http.mdx),
 * and the tasks extension's methods, whose `Mcp-Name` is `params.taskId` (SEP-2663 "Routing Headers").
 */
export const NAMED_PARAM: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The legacy session header (lower-case, as Node's headers are). */
export const SESSION_HEADER = 'mcp-session-id';
