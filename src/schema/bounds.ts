import { SchemaError } from './dialect.js';

/**
 * Resource bounds for schemas (spec basic/index "Composition-Keyword Resource
 * Use"): a hostile or accidental schema must not turn validation into a DoS.
 */
export interface SchemaBounds {
  maxDepth: number;
  maxSubschemas: number;
}

export const DEFAULT_SCHEMA_BOUNDS: SchemaBounds = { maxDepth: 32, maxSubschemas: 5_000 };

export function checkSchemaBounds(schema: unknown, bounds: SchemaBounds = DEFAULT_SCHEMA_BOUNDS): void {
  let count = 0;
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object') return;
    if (depth > bounds.maxDepth) {
      throw new SchemaError(`schema nests deeper than ${bounds.maxDepth} levels`);
    }
    if (++count > bounds.maxSubschemas) {
      throw new SchemaError(`schema has more than ${bounds.maxSubschemas} subschemas`);
    }
    const values = Array.isArray(node) ? node : Object.values(node);
    for (const child of values) visit(child, depth + 1);
  };
  visit(schema, 0);
}
