import { SchemaError } from './dialect.js';
import { checkPattern, ReferenceTargets, type Place } from './resolve-refs.js';

interface SchemaScan {
  /** Why Ajv would fail to compile the schema, naming the JSON Pointer of the culprit; undefined if it would not. */
  compileProblem?: string;
}

/**
 * One walk over a schema, at registration. It refuses `$ref`s that point at a
 * network URI (spec basic/index "$ref Resolution": they are never
 * dereferenced, so such a schema would validate permissively). It also finds
 * the mistakes that make Ajv's compile fail but that the meta-schema cannot
 * see (a `pattern` that is no regular expression, a reference that leads
 * nowhere): Ajv compiles on a validator's first call, and a broken schema
 * must still be reported when its tool is registered.
 */
export function scanSchema(schema: Record<string, unknown>): SchemaScan {
  const targets = new ReferenceTargets(schema);
  let problem: string | undefined;
  const note = (p: string | undefined): void => {
    problem ??= p;
  };

  const visit = (node: unknown, place: Place, ptr: string, base: string): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      // Only the lists of subschemas (allOf, prefixItems...) hold schemas; other arrays are data.
      const inner: Place = place === 'list' ? 'schema' : place === 'scanned' ? 'scanned' : 'data';
      node.forEach((child, i) => {
        visit(child, inner, `${ptr}/${i}`, base);
      });
      return;
    }
    const obj = node as Record<string, unknown>;
    if (place === 'schema' || place === 'scanned') base = targets.register(obj, place, ptr, base, note);
    for (const [key, value] of Object.entries(obj)) {
      const at = `${ptr}/${escapePointer(key)}`;
      if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') {
        if (isExternal(value)) {
          throw new SchemaError(`"${key}": ${JSON.stringify(value)} points outside the schema; network references are never fetched`);
        }
        if (place === 'schema') targets.refer({ keyword: key, ref: value, ptr: at, base });
      }
      if (place === 'schema' && key === 'pattern' && typeof value === 'string') note(checkPattern(value, at));
      if (place === 'schema' && key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const p of Object.keys(value)) note(checkPattern(p, `${at}/${escapePointer(p)}`));
      }
      visit(value, childPlace(place, key, value), at, base);
    }
  };
  visit(schema, 'schema', '', targets.rootBase);
  note(targets.unresolved());
  return { compileProblem: problem };
}

// The applicators of both dialects alike: a keyword that one dialect ignores
// is still checked, since a broken pattern there is a mistake either way.
const SUBSCHEMA = new Set([
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
const DATA = new Set(['const', 'enum', 'default', 'examples']);

function childPlace(place: Place, key: string, value: unknown): Place {
  if (place === 'list' || place === 'map') return 'schema';
  if (place !== 'schema') return place;
  if (Array.isArray(value)) return SUBSCHEMA_LIST.has(key) ? 'list' : 'data';
  if (SUBSCHEMA.has(key)) return 'schema';
  if (SUBSCHEMA_MAP.has(key)) return 'map';
  return DATA.has(key) ? 'data' : 'scanned';
}

function isExternal(ref: string): boolean {
  if (ref.startsWith('#')) return false;
  // Relative refs without a scheme resolve against the schema's own $id; absolute URIs are external.
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(ref) || ref.startsWith('//');
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
