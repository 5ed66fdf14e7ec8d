import { showRef, type LocalRefs } from './refs.js';
import { isObject, setOwn, type JsonObject } from './types.js';

/** Which side a schema describes: input drops readOnly properties, output drops writeOnly ones (OpenAPI 3.0 §4.7.24). */
export type SchemaSide = 'input' | 'output';

/** A schema whose expansion would be too large to send in tools/list. */
export class SchemaTooLarge extends Error {
  override readonly name = 'SchemaTooLarge';
}

/** Levels of nested schemas kept; deeper ones become `{}` (toolwright's schema bounds allow 32 levels of JSON nesting). */
const MAX_SCHEMA_DEPTH = 10;
/** Schema objects one conversion may produce, references expanded. */
const MAX_NODES = 5_000;

// Keywords whose value is one subschema, a list of them, or a map of names to them.
const ONE = new Set(['not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'items']);
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const MAP = new Set(['properties', 'patternProperties', 'dependentSchemas']);
/**
 * Dropped: OpenAPI-only words (discriminator, xml, externalDocs), identifiers that would change
 * the base URI, `$defs` (references resolve against the document, and are inlined), and every
 * `x-` extension (`x-mcp-header` means something to MCP clients; a document must not say it).
 */
const DROPPED = new Set(['discriminator', 'xml', 'externalDocs', '$schema', '$id', '$anchor', '$dynamicAnchor', '$defs', 'definitions', 'nullable', 'example']);
/** What ajv-formats knows; any other `format` would only print warnings, so it is dropped. */
const FORMATS = new Set(
  'date time date-time iso-time iso-date-time duration uri uri-reference uri-template url email hostname ipv4 ipv6 regex uuid json-pointer json-pointer-uri-fragment relative-json-pointer byte int32 int64 float double password binary'.split(
    ' ',
  ),
);

interface Walk {
  refs: LocalRefs;
  version: '3.0' | '3.1';
  side: SchemaSide;
  nodes: number;
}

/**
 * An OpenAPI schema as JSON Schema 2020-12: local `$ref`s inlined (a reference back into one
 * being expanded becomes `{}`: recursion is cut, not followed), `allOf` of objects merged,
 * 3.0's `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum` and `example` rewritten.
 * Throws RefusedReference/BrokenReference (from refs.ts) or SchemaTooLarge.
 */
export function convertSchema(schema: unknown, refs: LocalRefs, version: '3.0' | '3.1', side: SchemaSide): JsonObject | boolean {
  return convert(schema, { refs, version, side, nodes: 0 }, [], 0);
}

function convert(node: unknown, walk: Walk, stack: string[], depth: number): JsonObject | boolean {
  if (typeof node === 'boolean') return node;
  if (!isObject(node)) return {};
  if (++walk.nodes > MAX_NODES) throw new SchemaTooLarge(`its schema expands to more than ${MAX_NODES} subschemas`);
  if (depth > MAX_SCHEMA_DEPTH) return { description: 'Nested too deeply to describe here.' };
  if (typeof node.$ref === 'string') return convertRef(node, walk, stack, depth);

  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (ONE.has(key)) setOwn(out, key, convert(value, walk, stack, depth + 1));
    else if (LIST.has(key) && Array.isArray(value))
      setOwn(
        out,
        key,
        value.map((s) => convert(s, walk, stack, depth + 1)),
      );
    else if (MAP.has(key) && isObject(value)) setOwn(out, key, convertMap(key, value, walk, stack, depth));
    else if (key === 'format' && typeof value === 'string' && !FORMATS.has(value)) continue;
    else setOwn(out, key, value);
  }
  if (walk.version === '3.0') rewrite30(node, out);
  dropHiddenRequired(node, out);
  const merged = Array.isArray(out.allOf) ? mergeAllOf(out) : out;
  return walk.version === '3.0' && node.nullable === true ? nullable(merged) : merged;
}

function convertMap(key: string, value: JsonObject, walk: Walk, stack: string[], depth: number): JsonObject {
  const out: JsonObject = {};
  for (const [name, sub] of Object.entries(value)) {
    // readOnly properties are the server's to set, writeOnly ones never come back.
    if (key === 'properties' && isObject(sub) && hiddenOnSide(sub, walk)) continue;
    setOwn(out, name, convert(sub, walk, stack, depth + 1));
  }
  return out;
}

function hiddenOnSide(schema: JsonObject, walk: Walk): boolean {
  const own = walk.side === 'input' ? schema.readOnly : schema.writeOnly;
  if (own === true) return true;
  if (typeof schema.$ref !== 'string') return false;
  try {
    const target = walk.refs.follow(schema);
    return isObject(target) && (walk.side === 'input' ? target.readOnly : target.writeOnly) === true;
  } catch {
    return false; // the conversion itself reports the broken reference
  }
}

function convertRef(node: JsonObject, walk: Walk, stack: string[], depth: number): JsonObject | boolean {
  const ref = node.$ref as string;
  if (stack.includes(ref)) return { description: `Recursive: the same shape as ${showRef(ref)} (not expanded again).` };
  const target = convert(walk.refs.resolve(ref), walk, [...stack, ref], depth);
  // 3.1 allows keywords beside $ref (3.0 ignores them): annotations override, anything else is one more condition.
  const siblings = Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$ref'));
  if (walk.version === '3.0' || Object.keys(siblings).length === 0) return target;
  const rest = convert(siblings, walk, stack, depth);
  if (typeof target === 'boolean' || typeof rest === 'boolean') return { allOf: [target, rest] };
  const annotationsOnly = Object.keys(rest).every((key) => key === 'description' || key === 'title' || key === 'deprecated');
  return annotationsOnly ? { ...target, ...rest } : { allOf: [target, rest] };
}

/** A property left out for this side (a readOnly `id` of an input) is no longer required either. */
function dropHiddenRequired(source: JsonObject, out: JsonObject): void {
  if (!Array.isArray(out.required) || !isObject(source.properties) || !isObject(out.properties)) return;
  const kept = out.properties;
  const hidden = new Set(Object.keys(source.properties).filter((name) => !Object.hasOwn(kept, name)));
  out.required = out.required.filter((name) => !hidden.has(name as string));
  if ((out.required as unknown[]).length === 0) delete out.required;
}

/** OpenAPI 3.0's own spellings, in JSON Schema 2020-12 terms. */
function rewrite30(source: JsonObject, out: JsonObject): void {
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof source[flag] !== 'boolean') continue;
    delete out[flag];
    if (source[flag] === true && typeof source[bound] === 'number') {
      out[flag] = source[bound];
      delete out[bound];
    }
  }
  if (source.example !== undefined && out.examples === undefined) out.examples = [source.example];
}

/** 3.0 `nullable: true`: null is one more allowed value. */
function nullable(schema: JsonObject | boolean): JsonObject | boolean {
  if (typeof schema === 'boolean') return schema;
  const out = { ...schema };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    return out;
  }
  if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    return out;
  }
  // No type of its own (a reference, a composition): either it, or null.
  return { anyOf: [out, { type: 'null' }] };
}

/** Keywords an object member of `allOf` may carry and still be merged into one object schema. */
const MERGEABLE = new Set(['type', 'properties', 'required', 'description', 'title', 'additionalProperties']);

/**
 * `allOf: [A, B]` of plain object schemas becomes one object schema (properties and required
 * lists joined), which models and clients read far better than a composition. When a member is
 * anything else the composition is kept, valid as it stands.
 */
function mergeAllOf(schema: JsonObject): JsonObject {
  const members = schema.allOf as Array<JsonObject | boolean>;
  const outer = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'allOf'));
  const parts = [outer, ...members];
  const mergeable = parts.every(
    (part) => isObject(part) && Object.keys(part).every((key) => MERGEABLE.has(key)) && (part.type === undefined || part.type === 'object'),
  );
  // additionalProperties: false in one member would refuse the others' properties: keep the composition.
  if (!mergeable || parts.some((part) => isObject(part) && part.additionalProperties !== undefined)) return schema;
  const properties: JsonObject = {};
  const required = new Set<string>();
  const merged: JsonObject = { type: 'object' };
  for (const part of parts as JsonObject[]) {
    for (const [name, sub] of Object.entries(isObject(part.properties) ? part.properties : {})) {
      setOwn(properties, name, Object.hasOwn(properties, name) ? { allOf: [properties[name], sub] } : sub);
    }
    if (Array.isArray(part.required)) for (const name of part.required) if (typeof name === 'string') required.add(name);
    if (typeof part.title === 'string') merged.title ??= part.title;
    if (typeof part.description === 'string') merged.description ??= part.description;
  }
  if (typeof outer.description === 'string') merged.description = outer.description;
  merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}
