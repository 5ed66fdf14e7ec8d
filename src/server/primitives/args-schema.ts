import { compileSchema, type Validator } from '../../schema/compile.js';
import { closedNames, tooManyNames } from '../../schema/closed-names.js';
import { SchemaError } from '../../schema/dialect.js';
import { isStandardSchema, parseWithStandard, standardToJsonSchema, type StandardSchemaV1 } from '../../schema/standard.js';
import type { JsonSchema } from '../tool.js';

/** A schema for string arguments (prompt arguments, template variables), checked and compiled once. */
export interface ArgsSchema {
  readonly json: JsonSchema;
  /**
   * Checks `value` (compiled validator, then the Standard Schema's own parse, whose output the handler gets):
   * at once for a plain JSON Schema (no promise, no microtask), a promise only when a Standard Schema parses.
   */
  check(value: Record<string, unknown>): ArgsChecked | Promise<ArgsChecked>;
  /** The problems of an object with too many names the schema does not admit, found from its first few; undefined otherwise (schema/closed-names.ts). */
  tooManyNames(value: Record<string, unknown>): string[] | undefined;
}

/** What a check found: the value the handler gets, or the problems. */
export type ArgsChecked = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** Throws a readable Error (SchemaError) when the schema is not an object schema or does not compile. */
export function compileArgsSchema(schema: JsonSchema | StandardSchemaV1, root: string): ArgsSchema {
  const standard = isStandardSchema(schema) ? schema : undefined;
  const json = standard ? standardToJsonSchema(standard, 'input') : schema;
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new SchemaError('a schema must be a JSON Schema object or a Standard Schema (zod, valibot, arktype)');
  if ((json as JsonSchema).type !== 'object') throw new SchemaError('the schema must be an object schema ({ "type": "object", ... })');
  const validate: Validator = compileSchema(json, { root });
  const admitted = closedNames(json as Record<string, unknown>);
  return {
    json: json as JsonSchema,
    tooManyNames: (value) => (admitted ? tooManyNames(value, admitted, (json as Record<string, unknown>).required, root) : undefined),
    check(value) {
      const outcome = validate(value);
      if (!outcome.ok) return outcome;
      return standard ? parseWithStandard(standard, value, root) : { ok: true, value };
    },
  };
}
