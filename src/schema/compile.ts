import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { checkSchemaBounds, DEFAULT_SCHEMA_BOUNDS, type SchemaBounds } from './bounds.js';
import { dialectOf, SchemaError } from './dialect.js';
import { describeValidationErrors } from './format-errors.js';
import { checkNoNetworkRefs } from './refs.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type ValidationOutcome = { ok: true } | { ok: false; problems: string[] };
export type Validator = (value: unknown) => ValidationOutcome;

// One Ajv instance per dialect for the whole process: compiling is the
// expensive part and happens once per tool, at registration.
const ajvOptions = {
  allErrors: true,
  strict: false, // unknown keywords (x-mcp-header, x-sensitive, descriptions of custom UIs) are annotations
  addUsedSchema: false, // two tools may share a $id without colliding in the cache
  validateSchema: true,
} as const;
let instances: { '2020-12': Ajv; 'draft-07': Ajv } | undefined;

function ajvFor(dialect: '2020-12' | 'draft-07'): Ajv {
  instances ??= {
    '2020-12': addFormats(new Ajv2020(ajvOptions) as unknown as Ajv),
    'draft-07': addFormats(new Ajv(ajvOptions)),
  };
  return instances[dialect];
}

/**
 * Compiles a JSON Schema into a validator that reports every problem.
 * Throws SchemaError with a readable reason when the schema is unusable.
 */
export function compileSchema(schema: unknown, options: { root?: string; bounds?: SchemaBounds } = {}): Validator {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new SchemaError('a schema must be a JSON object');
  }
  checkSchemaBounds(schema, options.bounds ?? DEFAULT_SCHEMA_BOUNDS);
  checkNoNetworkRefs(schema);
  const dialect = dialectOf(schema as Record<string, unknown>);
  let validate: ValidateFunction;
  try {
    validate = ajvFor(dialect).compile(schema as Record<string, unknown>);
  } catch (err) {
    throw new SchemaError(`the schema does not compile: ${(err as Error).message}`);
  }
  const root = options.root ?? 'arguments';
  return (value) => (validate(value) ? { ok: true } : { ok: false, problems: describeValidationErrors(validate.errors, root) });
}
