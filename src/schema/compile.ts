import type { ValidateFunction } from 'ajv';
import { AjvPool } from './ajv-pool.js';
import { checkSchemaBounds, DEFAULT_SCHEMA_BOUNDS, type SchemaBounds } from './bounds.js';
import { dialectOf, SchemaError, type Dialect } from './dialect.js';
import { ajvClass, ajvFormats, precompiledMetaValidator, type MetaValidator } from './ajv-load.js';
import { closedNames, tooManyNames } from './closed-names.js';
import { defaultSchemaEngine, type SchemaEngine } from './code-generation.js';
import { type InstanceCheck, interpretedCheck } from './interpreted.js';
import { describeValidationErrors } from './format-errors.js';
import { describeMetaSchemaErrors } from './meta-errors.js';
import { isPlainlyValid } from './plain-schema.js';
import { scanSchema } from './refs.js';

export type ValidationOutcome = { ok: true } | { ok: false; problems: string[] };
export type Validator = (value: unknown) => ValidationOutcome;

// Ajv instances per dialect, each retired after a number of schemas (ajv-pool.ts: Ajv keeps all
// it compiled while it lives). Loading Ajv and compiling schemas was ~40% of start-up, so nothing
// of it runs before a validator is first called: each piece is loaded when first needed.
const ajvOptions = {
  allErrors: true,
  strict: false, // unknown keywords (x-mcp-header, x-sensitive, descriptions of custom UIs) are annotations
  addUsedSchema: false, // two tools may share a $id without colliding in the cache
  validateSchema: false, // compileSchema has checked the schema against its meta-schema already
} as const;
const ajvPool = new AjvPool({
  create: (dialect) => new (ajvClass(dialect))(ajvOptions),
  addFormats: (ajv) => ajvFormats()(ajv),
});

/** @internal The Ajv instance compileSchema's validators of this dialect compile on now, if any (tests watch it retire). */
export function currentAjv(dialect: Dialect): object | undefined {
  return ajvPool.current(dialect);
}

/** Each dialect's meta-schema validator once found; undefined where there is none. */
const metaValidators = new Map<Dialect, MetaValidator | undefined>();

const META_SCHEMA_ID = { '2020-12': 'https://json-schema.org/draft/2020-12/schema', 'draft-07': 'http://json-schema.org/draft-07/schema' } as const;

function metaValidator(dialect: Dialect): MetaValidator | undefined {
  // On the first schema of this dialect checked, not at import.
  if (!metaValidators.has(dialect)) metaValidators.set(dialect, findMetaValidator(dialect));
  return metaValidators.get(dialect);
}

function findMetaValidator(dialect: Dialect): MetaValidator | undefined {
  const ready = precompiledMetaValidator(dialect);
  if (ready) return ready;
  // Where code cannot be generated (a Worker) and no precompiled file can be read, there is no
  // meta-schema validator: schemas beyond isPlainlyValid's keywords go unchecked against their
  // meta-schema (bounds, closed names and the reference rules still hold). docs/runtimes/workers.md.
  if (defaultSchemaEngine() === 'interpreted') return undefined;
  // Compiled once and kept: it keeps the one instance it came from alive, no more.
  return ajvPool.instance(dialect).getSchema(META_SCHEMA_ID[dialect]) as MetaValidator;
}

/** How each validator compiles itself; see warmValidator. */
const compilers = new WeakMap<Validator, () => InstanceCheck>();

function ajvCheck(validate: ValidateFunction): InstanceCheck {
  return (value) => (validate(value) ? null : (validate.errors ?? []));
}

/**
 * Compiles a JSON Schema into a validator that reports every problem.
 * Throws SchemaError with a readable reason when the schema is unusable; all
 * checks run now, but Ajv compiles the schema on the validator's first call.
 * `engine`: Ajv's generated code (`compiled`, wherever `new Function` is allowed) or the
 * interpreter (`interpreted`, where it is not: Workers); code-generation.ts chooses by default.
 */
export function compileSchema(schema: unknown, options: { root?: string; bounds?: SchemaBounds; engine?: SchemaEngine } = {}): Validator {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new SchemaError('a schema must be a JSON object');
  }
  checkSchemaBounds(schema, options.bounds ?? DEFAULT_SCHEMA_BOUNDS);
  const scan = scanSchema(schema as Record<string, unknown>); // refuses network references at once
  const dialect = dialectOf(schema as Record<string, unknown>);
  // A schema of a few simple keywords is known valid without loading the meta-schema validator.
  if (!isPlainlyValid(schema as Record<string, unknown>)) {
    const meta = metaValidator(dialect);
    if (meta && !meta(schema)) {
      const problems = describeMetaSchemaErrors(schema as Record<string, unknown>, meta.errors ?? []);
      const said = problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
      throw new SchemaError(`the schema is invalid: ${said.join('; ') || 'it fails its meta-schema'}`, problems);
    }
  }
  if (scan.compileProblem) throw new SchemaError(`the schema does not compile: ${scan.compileProblem}`);

  // A snapshot, so that the validator enforces the schema as checked (and as
  // sent in tools/list), even if the caller's object changes before first use.
  let json: string | undefined = JSON.stringify(schema);
  const engine = options.engine ?? defaultSchemaEngine();
  let compiled: InstanceCheck | SchemaError | undefined;
  const compile = (): InstanceCheck => {
    if (compiled === undefined) {
      try {
        const copy = JSON.parse(json!) as Record<string, unknown>;
        compiled = engine === 'interpreted' ? interpretedCheck(copy, dialect) : ajvCheck(ajvPool.compile(dialect, copy, json!.includes('"format"')));
      } catch (err) {
        // A case the checks above missed: fail every call alike, with no engine internals beyond its message.
        compiled = err instanceof SchemaError ? err : new SchemaError(`the schema does not compile: ${(err as Error).message}`);
      }
      json = undefined;
    }
    if (compiled instanceof SchemaError) throw compiled;
    return compiled;
  };
  const root = options.root ?? 'arguments';
  const admitted = closedNames(schema as Record<string, unknown>);
  const required = (schema as Record<string, unknown>).required;
  const validator: Validator = (value) => {
    // Too many names for a closed schema: the answer is known from the first few, without walking the rest.
    if (admitted && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const problems = tooManyNames(value as Record<string, unknown>, admitted, required, root);
      if (problems) return { ok: false, problems };
    }
    const errors = compile()(value);
    return errors === null ? { ok: true } : { ok: false, problems: describeValidationErrors(errors, root) };
  };
  compilers.set(validator, compile);
  return validator;
}

/**
 * Compiles a validator now rather than on its first call (say, while the
 * server is idle). Throws the validator's SchemaError if its schema does not
 * compile; every call of the validator would throw the same one.
 */
export function warmValidator(validator: Validator): void {
  compilers.get(validator)?.();
}
