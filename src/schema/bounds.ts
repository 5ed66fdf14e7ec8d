import { utf8Length } from '../io/bytes.js';
import { SchemaError } from './dialect.js';

/**
 * Resource bounds for schemas (spec basic/index "Composition-Keyword Resource
 * Use"): a hostile or accidental schema must not turn registration,
 * validation or tools/list into a DoS. Every part of a schema counts, not
 * only its subschemas: a 1,000,000-member `enum` (or `const`, `examples`,
 * `default`) holds no object at all, yet is compiled into every validation,
 * sent in every tools/list and read by every client.
 */
export interface SchemaBounds {
  /** Nesting of objects and arrays. */
  maxDepth: number;
  /** Objects and arrays. */
  maxSubschemas: number;
  /** JSON values of any kind: objects, arrays, strings, numbers, booleans and nulls, wherever they are. */
  maxValues: number;
  /** UTF-8 bytes of all strings together, property names included. */
  maxStringBytes: number;
}

export const DEFAULT_SCHEMA_BOUNDS: SchemaBounds = { maxDepth: 32, maxSubschemas: 5_000, maxValues: 50_000, maxStringBytes: 1024 * 1024 };

/**
 * Throws SchemaError naming the first bound the schema exceeds. Stops as
 * soon as one is exceeded, so checking a huge schema costs no more than
 * checking one at the limit.
 */
export function checkSchemaBounds(schema: unknown, bounds: SchemaBounds = DEFAULT_SCHEMA_BOUNDS): void {
  let containers = 0;
  let values = 0;
  let stringBytes = 0;
  const tooManyValues = () =>
    new SchemaError(`schema has more than ${bounds.maxValues} values (every member of enum, const, examples and default counts, as does every other value)`);
  const addString = (text: string) => {
    // A string's UTF-8 size is at least its length: a huge one fails without being measured.
    if (text.length > bounds.maxStringBytes - stringBytes) throw tooManyBytes(bounds);
    stringBytes += utf8Length(text);
    if (stringBytes > bounds.maxStringBytes) throw tooManyBytes(bounds);
  };
  const visit = (node: unknown, depth: number): void => {
    if (++values > bounds.maxValues) throw tooManyValues();
    if (typeof node === 'string') return void addString(node);
    if (node === null || typeof node !== 'object') return;
    if (depth > bounds.maxDepth) {
      throw new SchemaError(`schema nests deeper than ${bounds.maxDepth} levels`);
    }
    if (++containers > bounds.maxSubschemas) {
      throw new SchemaError(`schema has more than ${bounds.maxSubschemas} subschemas`);
    }
    if (Array.isArray(node)) {
      if (node.length > bounds.maxValues - values) throw tooManyValues();
      for (const child of node) visit(child, depth + 1);
      return;
    }
    const keys = Object.keys(node);
    if (keys.length > bounds.maxValues - values) throw tooManyValues();
    for (const key of keys) {
      addString(key);
      visit((node as Record<string, unknown>)[key], depth + 1);
    }
  };
  visit(schema, 0);
}

function tooManyBytes(bounds: SchemaBounds): SchemaError {
  return new SchemaError(`schema has more than ${bounds.maxStringBytes} bytes of text (descriptions, names, enum members and every other string count)`);
}

/** Why a schema exceeds the bounds, or undefined when it is within them (for callers that report rather than throw). */
export function schemaBoundsProblem(schema: unknown, bounds: SchemaBounds = DEFAULT_SCHEMA_BOUNDS): string | undefined {
  try {
    checkSchemaBounds(schema, bounds);
    return undefined;
  } catch (err) {
    if (err instanceof SchemaError) return err.message;
    throw err;
  }
}
