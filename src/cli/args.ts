import { isPlainObject } from '../protocol/content.js';
import { UsageError } from './errors.js';

/**
 * Builds tool arguments from `--args '<json>'` and `key=value` pairs. A value
 * stays a string unless the tool's inputSchema says the property takes
 * something else (number, integer, boolean, null, array, object), in which
 * case it is read as JSON; a value that does not fit stays a string and the
 * server's own validation explains the problem.
 */
export function buildArguments(pairs: string[], json: string | undefined, inputSchema: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = json === undefined ? {} : parseJsonArgs(json);
  const seen = new Set<string>();
  const properties = isPlainObject(inputSchema) && isPlainObject(inputSchema.properties) ? inputSchema.properties : {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`expected key=value, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    if (seen.has(key)) throw new UsageError(`argument ${JSON.stringify(key)} is given twice`);
    seen.add(key);
    const schema = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
    // defineProperty: a key such as "__proto__" must become an argument, not a prototype.
    Object.defineProperty(args, key, { value: coerce(pair.slice(eq + 1), schema), enumerable: true, writable: true, configurable: true });
  }
  return args;
}

function parseJsonArgs(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new UsageError(`--args is not valid JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(value)) throw new UsageError('--args must be a JSON object, e.g. --args \'{"a": 1}\'');
  return value;
}

export function coerce(raw: string, schema: unknown): unknown {
  const types = typesOf(schema);
  if (types.size === 0 || (types.size === 1 && types.has('string'))) return raw;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw;
  }
  for (const type of types) if (fits(value, type)) return value;
  return raw;
}

/** The JSON types a property schema allows, from `type`, or the branches of anyOf/oneOf. */
function typesOf(schema: unknown): Set<string> {
  const types = new Set<string>();
  if (!isPlainObject(schema)) return types;
  const add = (t: unknown) => {
    if (typeof t === 'string') types.add(t);
    else if (Array.isArray(t)) t.forEach(add);
  };
  add(schema.type);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) typesOf(branch).forEach((t) => types.add(t));
  }
  if (types.size === 0 && Array.isArray(schema.enum)) for (const v of schema.enum) types.add(jsonType(v));
  if (types.size === 0 && 'const' in schema) types.add(jsonType(schema.const));
  return types;
}

function fits(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'object':
      return isPlainObject(value);
    default:
      return jsonType(value) === type;
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? 'number' : typeof value;
}
