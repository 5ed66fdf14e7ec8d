import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { checkSchemaBounds, DEFAULT_SCHEMA_BOUNDS, type SchemaBounds } from './bounds.js';
import { dialectOf, SchemaError } from './dialect.js';
import { describeValidationErrors } from './format-errors.js';
import { checkNoNetworkRefs } from './refs.js';

const requireModule = createRequire(import.meta.url);

export type ValidationOutcome = { ok: true } | { ok: false; problems: string[] };
export type Validator = (value: unknown) => ValidationOutcome;

// One Ajv instance per dialect for the whole process: compiling is the
// expensive part and happens once per tool, at registration. Each piece is
// loaded when first needed (draft-07 and formats are rare), to keep start-up short.
const ajvOptions = {
  allErrors: true,
  strict: false, // unknown keywords (x-mcp-header, x-sensitive, descriptions of custom UIs) are annotations
  addUsedSchema: false, // two tools may share a $id without colliding in the cache
} as const;
const instances = new Map<string, Ajv>();
const withFormats = new WeakSet<Ajv>();

type MetaValidator = ((schema: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

/**
 * The meta-schemas compiled ahead of time by scripts/build-meta-validators.mjs
 * (`npm run build`), so that checking a schema costs no compilation at
 * start-up. Run from source (tests), they are absent and Ajv checks schemas
 * itself, as it would anyway.
 */
const metaValidators = ((): { v2020: MetaValidator; v07: MetaValidator } | undefined => {
  try {
    return requireModule('./meta-validators.cjs') as { v2020: MetaValidator; v07: MetaValidator };
  } catch {
    return undefined;
  }
})();

function ajvFor(dialect: '2020-12' | 'draft-07', usesFormats: boolean): Ajv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    const { default: AjvClass } = requireModule(dialect === '2020-12' ? 'ajv/dist/2020.js' : 'ajv') as { default: new (o: object) => Ajv };
    ajv = new AjvClass({ ...ajvOptions, validateSchema: metaValidators === undefined });
    instances.set(dialect, ajv);
  }
  if (usesFormats && !withFormats.has(ajv)) {
    (requireModule('ajv-formats') as { default: (a: Ajv) => Ajv }).default(ajv);
    withFormats.add(ajv);
  }
  return ajv;
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
  const meta = metaValidators && (dialect === '2020-12' ? metaValidators.v2020 : metaValidators.v07);
  if (meta && !meta(schema)) {
    const problems = [...new Set((meta.errors ?? []).map((e) => `data${e.instancePath} ${e.message ?? 'is invalid'}`))];
    throw new SchemaError(`the schema does not compile: schema is invalid: ${problems.join(', ')}`);
  }
  let validate: ValidateFunction;
  try {
    validate = ajvFor(dialect, JSON.stringify(schema).includes('"format"')).compile(schema as Record<string, unknown>);
  } catch (err) {
    throw new SchemaError(`the schema does not compile: ${(err as Error).message}`);
  }
  const root = options.root ?? 'arguments';
  return (value) => (validate(value) ? { ok: true } : { ok: false, problems: describeValidationErrors(validate.errors, root) });
}
