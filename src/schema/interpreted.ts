import { dereference, type Schema, type SchemaDraft, type OutputUnit, validate } from '@cfworker/json-schema';
import type { ErrorObject } from 'ajv';
import type { Dialect } from './dialect.js';
import { SchemaError } from './dialect.js';

/** What an engine gives back for one value: null when it is valid, else Ajv-shaped errors (format-errors.ts words them). */
export type InstanceCheck = (value: unknown) => ErrorObject[] | null;

const DRAFT: Record<Dialect, SchemaDraft> = { '2020-12': '2020-12', 'draft-07': '7' };

/**
 * A validator that interprets the schema at each call (@cfworker/json-schema) instead of
 * generating code, for runtimes that forbid `new Function` (Workers). Its errors are translated
 * to the shape Ajv gives (keyword, instancePath, params, message), so that a client reads the
 * same problems whichever engine ran (test/schema/engines.test.ts holds the two to each other).
 * `schema` must be the engine's own copy: @cfworker/json-schema annotates it in place.
 */
export function interpretedCheck(schema: Record<string, unknown>, dialect: Dialect): InstanceCheck {
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(schema as Schema);
  } catch (err) {
    throw new SchemaError(`the schema does not compile: ${(err as Error).message}`);
  }
  const draft = DRAFT[dialect];
  const run = (value: unknown): OutputUnit[] | null => {
    try {
      // shortCircuit false: every problem, as Ajv's allErrors.
      const result = validate(value, schema as Schema, draft, lookup, false);
      return result.valid ? null : result.errors;
    } catch (err) {
      const message = (err as Error).message;
      if (message.startsWith('Instances of')) throw new NotJson();
      // A case the registration checks missed (a reference the walk could not judge): fail the call alike.
      throw new SchemaError(`the schema does not compile: ${message.split('\n')[0]}`);
    }
  };
  return (value) => {
    let units: OutputUnit[] | null;
    try {
      units = run(value);
    } catch (err) {
      if (!(err instanceof NotJson)) throw err;
      // An undefined or a function somewhere (structured output built in code): judge what JSON
      // would carry, as Ajv, which passes over such values, in effect does.
      const sent = asJson(value);
      if (sent === NOT_JSON) return [ajvError('type', '', {}, 'must be JSON data')];
      units = run(sent);
    }
    return units === null ? null : toAjvErrors(units, (location) => schemaValueAt(schema, lookup, location));
  };
}

class NotJson extends Error {}
const NOT_JSON = Symbol('not JSON');

function asJson(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? NOT_JSON : JSON.parse(text);
  } catch {
    return NOT_JSON; // a BigInt, a cycle
  }
}

/** The schema value a keywordLocation (`#/properties/a/$ref/maximum`) names, following `$ref`s; undefined when it cannot be followed. */
function schemaValueAt(root: unknown, lookup: Record<string, Schema | boolean>, location: string): unknown {
  let node: unknown = root;
  for (const raw of location.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    const segment = decodeSegment(raw);
    if (segment === '$ref') {
      const holder = node as Schema;
      node = lookup[holder.__absolute_ref__ ?? holder.$ref ?? ''];
    } else if (segment === '$recursiveRef') {
      return undefined;
    } else {
      node = Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return node;
}

function decodeSegment(raw: string): string {
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // not percent-encoded after all
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `#/a/b%20c` (cfworker: URI-encoded JSON Pointer) as Ajv's instancePath `/a/b c`. */
function instancePathOf(location: string): string {
  const pointer = location.slice(1);
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}

// Units that only say "a subschema had errors": the subschema's own units follow and say what; Ajv reports those alone.
const WRAPPERS = new Set([
  '$ref',
  '$recursiveRef',
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'allOf',
  'dependentSchemas',
  'dependencies',
  'propertyNames',
]);

function toAjvErrors(units: OutputUnit[], valueAt: (keywordLocation: string) => unknown): ErrorObject[] {
  const out: ErrorObject[] = [];
  for (let i = 0; i < units.length; i++) {
    const unit = units[i];
    if (WRAPPERS.has(unit.keyword)) continue;
    const schemaValue = valueAt(unit.keywordLocation);
    const instancePath = instancePathOf(unit.instanceLocation);
    if (unit.keyword === 'additionalProperties' || unit.keyword === 'unevaluatedProperties') {
      // Only `false` is a problem of its own (an unexpected name); any other schema reports through its units.
      if (schemaValue !== false) continue;
      const name = quoted(unit.error, 'Property "', '" does not match');
      const param = unit.keyword === 'additionalProperties' ? 'additionalProperty' : 'unevaluatedProperty';
      out.push(ajvError(unit.keyword, instancePath, { [param]: name }, 'must NOT have additional properties'));
      if (units[i + 1]?.keyword === 'false') i++; // the `false` subschema's own unit says the same
      continue;
    }
    out.push(translate(unit, instancePath, schemaValue));
  }
  return out;
}

function translate(unit: OutputUnit, instancePath: string, value: unknown): ErrorObject {
  const err = (params: Record<string, unknown>, message: string) => ajvError(unit.keyword, instancePath, params, message);
  const limit = typeof value === 'number' ? value : undefined;
  switch (unit.keyword) {
    case 'required': {
      const name = quoted(unit.error, 'required property "', '".');
      return err({ missingProperty: name }, `must have required property '${name}'`);
    }
    case 'type': {
      const type = Array.isArray(value) ? value.join(',') : String(value);
      return err({ type }, `must be ${type}`);
    }
    case 'enum':
      return err({ allowedValues: Array.isArray(value) ? value : [] }, 'must be equal to one of the allowed values');
    case 'const':
      return err({ allowedValue: value }, 'must be equal to constant');
    case 'minimum':
      return err({ comparison: '>=', limit }, `must be >= ${limit}`);
    case 'maximum':
      return err({ comparison: '<=', limit }, `must be <= ${limit}`);
    case 'exclusiveMinimum':
      return err({ comparison: '>', limit }, `must be > ${limit}`);
    case 'exclusiveMaximum':
      return err({ comparison: '<', limit }, `must be < ${limit}`);
    case 'minLength':
      return err({ limit }, `must NOT have fewer than ${limit} characters`);
    case 'maxLength':
      return err({ limit }, `must NOT have more than ${limit} characters`);
    case 'minItems':
      return err({ limit }, `must NOT have fewer than ${limit} items`);
    case 'maxItems':
      return err({ limit }, `must NOT have more than ${limit} items`);
    case 'minProperties':
      return err({ limit }, `must NOT have fewer than ${limit} properties`);
    case 'maxProperties':
      return err({ limit }, `must NOT have more than ${limit} properties`);
    case 'multipleOf':
      return err({ multipleOf: value }, `must be multiple of ${String(value)}`);
    case 'pattern':
      return err({ pattern: value }, `must match pattern "${String(value)}"`);
    case 'format':
      return err({ format: value }, `must match format "${String(value)}"`);
    case 'uniqueItems': {
      const [j, k] = (unit.error.match(/\d+/g) ?? ['0', '0']).map(Number);
      return err({ i: Math.min(j, k), j: Math.max(j, k) }, `must NOT have duplicate items (items ## ${Math.max(j, k)} and ${Math.min(j, k)} are identical)`);
    }
    case 'not':
      return err({}, 'must NOT be valid');
    case 'anyOf':
      return err({}, 'must match a schema in anyOf');
    case 'oneOf':
      return err({}, 'must match exactly one schema in oneOf');
    case 'false':
      return ajvError('false schema', instancePath, {}, 'boolean schema is false');
    case 'contains':
      return err({}, 'must contain at least 1 valid item(s)');
    default:
      // if (filtered by the wording), dependentRequired and the rest: the interpreter's own sentence.
      return err({}, unit.error.replace(/^Instance /, '').replace(/\.$/, ''));
  }
}

function ajvError(keyword: string, instancePath: string, params: Record<string, unknown>, message: string): ErrorObject {
  return { keyword, instancePath, schemaPath: '', params, message };
}

/** The text between `before` and the last `after` of a message (a property name, which may itself hold quotes). */
function quoted(message: string, before: string, after: string): string {
  const start = message.indexOf(before);
  const end = message.lastIndexOf(after);
  return start >= 0 && end > start ? message.slice(start + before.length, end) : message;
}
