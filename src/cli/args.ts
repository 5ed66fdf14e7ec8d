import { isPlainObject } from '../protocol/content.js';
import { UsageError } from './errors.js';
import { sanitize } from '../io/sanitize.js';

/** Told when a value was read as something other than itself or its JSON (`tags=a,b` → ["a","b"]). */
type CoercionNote = (note: string) => void;

/**
 * Builds tool arguments from `--args '<json>'` and `key=value` pairs. A value
 * stays a string unless the tool's inputSchema says the property takes
 * something else, in which case it is read from the schema as the FastMCP CLI
 * does: JSON first (`n=2`, `tags='["a","b"]'`), then booleans from
 * yes/no/on/off/1/0, then arrays of scalars from a comma list (`ops=sum` →
 * ["sum"], `ids=1,2` → [1,2]). Those last two are guesses, so `onCoerced`
 * hears about each. A value that does not fit stays a string and the server's
 * own validation explains the problem.
 */
export function buildArguments(pairs: string[], json: string | undefined, inputSchema: unknown, onCoerced?: CoercionNote): Record<string, unknown> {
  const args: Record<string, unknown> = json === undefined ? {} : parseJsonArgs(json);
  const seen = new Set<string>();
  const properties = isPlainObject(inputSchema) && isPlainObject(inputSchema.properties) ? inputSchema.properties : {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`expected key=value, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    if (seen.has(key)) throw new UsageError(`argument ${JSON.stringify(key)} is given twice`);
    seen.add(key);
    const schema = Object.hasOwn(properties, key) ? properties[key] : undefined;
    const raw = pair.slice(eq + 1);
    const { value, guessed } = coerceValue(raw, schema);
    if (guessed && onCoerced)
      onCoerced(`read ${sanitize(key)}=${sanitize(raw)} as ${sanitize(JSON.stringify(value))} (the schema wants ${describeTypes(schema)})`);
    // defineProperty: a key such as "__proto__" must become an argument, not a prototype.
    Object.defineProperty(args, key, { value, enumerable: true, writable: true, configurable: true });
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

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  y: true,
  n: false,
  on: true,
  off: false,
  1: true,
  0: false,
};
const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/**
 * One value read from the schema. `guessed` is true when it took more than
 * JSON to read it (boolean words, a comma list): the caller says so.
 */
function coerceValue(raw: string, schema: unknown): { value: unknown; guessed: boolean } {
  const types = typesOf(schema);
  if (types.size === 0 || (types.size === 1 && types.has('string'))) return { value: raw, guessed: false };
  const parsed = parseJson(raw);
  if (parsed.ok && [...types].some((type) => fits(parsed.value, type))) return { value: parsed.value, guessed: false };
  // A string is allowed and the text is not JSON of another allowed type: it is that string.
  if (types.has('string')) return { value: raw, guessed: false };
  const word = raw.trim().toLowerCase();
  if (types.has('boolean') && Object.hasOwn(BOOLEAN_WORDS, word)) return { value: BOOLEAN_WORDS[word], guessed: true };
  const items = isPlainObject(schema) ? arrayItems(schema) : undefined;
  // JSON of the wrong shape (`ids={"a":1}`) is not a list the user typed: the server explains it.
  const explicitJson = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null;
  if (types.has('array') && items !== undefined && !explicitJson) {
    // An empty value is an empty list; otherwise each comma-separated piece is one scalar item.
    const pieces = raw.trim() === '' ? [] : raw.split(',').map((piece) => piece.trim());
    return { value: pieces.map((piece) => coerceValue(piece, items).value), guessed: true };
  }
  return { value: raw, guessed: false };
}

/** The items schema of an array of scalars ({} when items are not described); undefined when items are arrays or objects. */
function arrayItems(schema: Record<string, unknown>): unknown {
  if (schema.items === undefined) return {};
  const itemTypes = typesOf(schema.items);
  return [...itemTypes].every((t) => SCALARS.has(t)) ? schema.items : undefined;
}

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

/** The JSON types a property schema allows, from `type`, or the branches of anyOf/oneOf. */
export function typesOf(schema: unknown): Set<string> {
  const types = new Set<string>();
  if (!isPlainObject(schema)) return types;
  const add = (t: unknown) => {
    if (typeof t === 'string') types.add(t);
    else if (Array.isArray(t)) t.forEach(add);
  };
  add(schema.type);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) for (const t of typesOf(branch)) types.add(t);
  }
  if (types.size === 0 && Array.isArray(schema.enum)) for (const v of schema.enum) types.add(jsonType(v));
  if (types.size === 0 && 'const' in schema) types.add(jsonType(schema.const));
  return types;
}

function describeTypes(schema: unknown): string {
  const types = [...typesOf(schema)];
  if (isPlainObject(schema) && types.includes('array')) {
    const items = [...typesOf(schema.items)];
    return `an array${items.length ? ` of ${items.join(' or ')}` : ''}`;
  }
  return types.map((t) => (t === 'integer' ? 'an integer' : t === 'boolean' ? 'a boolean' : `a ${t}`)).join(' or ');
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
