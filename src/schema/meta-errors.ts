import { TYPE_NAMES } from './plain-schema.js';

/** One meta-schema failure as Ajv reports it (the precompiled validators report the same shape). */
interface MetaSchemaError {
  instancePath: string;
  message?: string;
}

/** A problem with one key of a schema: where (`properties.a.type`, '' for the root) and what is allowed there. */
interface SchemaProblem {
  path: string;
  message: string;
}

// Keywords whose value is one schema, a map of names to schemas, or an array of schemas (2020-12 and draft-07).
const SCHEMA_VALUED = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_ARRAYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

const TYPE_LIST = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'].join(', ');
const TYPE_ALIASES: Record<string, string> = {
  int: 'integer',
  float: 'number',
  double: 'number',
  bool: 'boolean',
  str: 'string',
  text: 'string',
  dict: 'object',
  map: 'object',
  list: 'array',
};
const SCHEMA_SHAPE = 'a schema: an object such as { "type": "string" }, or true/false';

/**
 * Words a schema's meta-schema failures as the key at fault and what is
 * allowed there (`properties.a.type: "int" is not a JSON Schema type; use one
 * of: …`), instead of Ajv's `must be equal to one of the allowed values, …
 * must match a schema in anyOf`. Ajv's paths say where; the message is made
 * from the schema's own value there. A failure at a key this does not know
 * keeps Ajv's words.
 */
export function describeMetaSchemaErrors(schema: Record<string, unknown>, errors: readonly MetaSchemaError[]): SchemaProblem[] {
  const problems = new Map<string, SchemaProblem>();
  const ajvWords = new Map<string, Set<string>>();
  for (const error of errors) {
    const site = siteOf(schema, pointerSegments(error.instancePath));
    const path = keyPath(site.segments);
    const message = explain(site);
    if (message) {
      problems.set(path, { path, message });
    } else {
      const words = ajvWords.get(path) ?? new Set<string>();
      words.add(`${keyPath(pointerSegments(error.instancePath)) || '(the schema)'} ${error.message ?? 'is invalid'}`);
      ajvWords.set(path, words);
    }
  }
  for (const [path, words] of ajvWords) {
    if (!problems.has(path)) problems.set(path, { path, message: [...words].join(', ') });
  }
  // A failure inside a key that is itself explained (Ajv reports `anyOf` at a parent too) says nothing more.
  const within = (path: string, outer: string) => outer !== '' && outer !== path && (path.startsWith(`${outer}.`) || path.startsWith(`${outer}[`));
  return [...problems.values()].filter((p) => ![...problems.keys()].some((outer) => within(p.path, outer)));
}

/** Where in the schema a failure is: the key that holds the bad value, and what kind of place that is. */
interface Site {
  segments: string[];
  kind: 'keyword' | 'schema' | 'schema-map' | 'schema-array';
  keyword: string;
  value: unknown;
}

/** Walks the failure's path through schema positions; the first plain keyword on it is the key at fault. */
function siteOf(schema: Record<string, unknown>, segments: string[]): Site {
  let kind: Site['kind'] = 'schema';
  let value: unknown = schema;
  let keyword = '';
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    // Own keys only: a property named "__proto__" or "constructor" is just a name.
    value = (isRecord(value) || Array.isArray(value)) && Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
    if (kind !== 'schema') {
      kind = 'schema'; // a member of a map or array of schemas
      continue;
    }
    keyword = segment;
    if (SCHEMA_MAPS.has(segment)) kind = 'schema-map';
    else if (SCHEMA_ARRAYS.has(segment) || (segment === 'items' && Array.isArray(value))) kind = 'schema-array';
    else if (!SCHEMA_VALUED.has(segment)) return { segments: segments.slice(0, i + 1), kind: 'keyword', keyword, value };
  }
  return { segments, kind, keyword, value };
}

function explain({ kind, keyword, value }: Site): string | undefined {
  const got = `got ${shown(value)}`;
  if (kind === 'schema') {
    if (typeof value === 'string' && TYPE_NAMES.has(value))
      return `must be a schema such as { "type": ${JSON.stringify(value)} }, not just ${JSON.stringify(value)}`;
    return isRecord(value) || typeof value === 'boolean' ? undefined : `must be ${SCHEMA_SHAPE}; ${got}`;
  }
  if (kind === 'schema-map')
    return isRecord(value) ? undefined : `must be an object mapping each name to its schema, e.g. { "a": { "type": "string" } }; ${got}`;
  if (kind === 'schema-array') return `must be a non-empty array of schemas; ${got}`;
  const rule = KEYWORD_RULES[keyword];
  return rule?.(value);
}

/** What each common keyword allows, said for the value found there (known to be invalid). */
const KEYWORD_RULES: Record<string, (value: unknown) => string | undefined> = {
  type: explainType,
  required: (v) => {
    if (typeof v === 'boolean')
      return 'must be an array of property names; to require a property, list it in its object\'s "required" (e.g. "required": ["a"]), not "required": true on the property';
    if (!Array.isArray(v)) return `must be an array of property names, e.g. ["a"]; got ${shown(v)}`;
    return 'must list property names as strings, each once';
  },
  enum: (v) =>
    Array.isArray(v) ? 'must list at least one allowed value, each once' : `must be an array of the allowed values, e.g. ["a", "b"]; got ${shown(v)}`,
  format: (v) => `must be a string naming a format, e.g. "date-time" or "email"; got ${shown(v)}`,
  pattern: (v) => `must be a string holding a regular expression; got ${shown(v)}`,
  title: (v) => `must be a string; got ${shown(v)}`,
  description: (v) => `must be a string; got ${shown(v)}`,
  uniqueItems: (v) => `must be true or false; got ${shown(v)}`,
  ...Object.fromEntries(
    ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains'].map((k) => [
      k,
      (v: unknown) => `must be a whole number, 0 or more; got ${shown(v)}`,
    ]),
  ),
  ...Object.fromEntries(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map((k) => [k, (v: unknown) => `must be a number; got ${shown(v)}`])),
  multipleOf: (v) => `must be a number greater than 0; got ${shown(v)}`,
};

function explainType(value: unknown): string {
  const names = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length === 0) return `must name at least one type; use one of: ${TYPE_LIST}`;
  const unknown = names.find((n) => typeof n !== 'string' || !TYPE_NAMES.has(n));
  if (unknown === undefined) return 'must name each type once';
  if (typeof unknown !== 'string') return `must be a type name or an array of them; got ${shown(value)}; use one of: ${TYPE_LIST}`;
  const alias = TYPE_ALIASES[unknown.toLowerCase()] ?? (TYPE_NAMES.has(unknown.toLowerCase()) ? unknown.toLowerCase() : undefined);
  return `${JSON.stringify(unknown)} is not a JSON Schema type${alias ? ` (did you mean ${JSON.stringify(alias)}?)` : ''}; use one of: ${TYPE_LIST}`;
}

function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `properties.a.type`, `anyOf[1]`, `properties["x-y"]`: how a user would write the key in code. */
function keyPath(segments: readonly string[]): string {
  let path = '';
  for (const segment of segments) {
    if (/^(0|[1-9]\d*)$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) path += path ? `.${segment}` : segment;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}...` : json;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
