import { SchemaError } from './dialect.js';
import { boundedProblems } from './format-errors.js';

/**
 * The Standard Schema interface (standardschema.dev) that zod 4, valibot and
 * arktype implement, with its JSON Schema extension.
 */
export interface StandardSchemaV1 {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult | Promise<StandardResult>;
    readonly jsonSchema?: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
      readonly output?: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

export type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }> };

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && '~standard' in (value as object);
}

/** Converts a Standard Schema to JSON Schema 2020-12, once, at registration. */
export function standardToJsonSchema(schema: StandardSchemaV1, which: 'input' | 'output'): Record<string, unknown> {
  const convert = schema['~standard'].jsonSchema?.[which];
  if (!convert) {
    throw new SchemaError(
      `this ${schema['~standard'].vendor} schema cannot describe itself as JSON Schema; upgrade the library (zod ≥ 4.2) or pass a JSON Schema object`,
    );
  }
  const json = { ...convert({ target: 'draft-2020-12' }) };
  // The wire default is 2020-12; an explicit $schema adds nothing for clients.
  if (json.$schema === 'https://json-schema.org/draft/2020-12/schema') delete json.$schema;
  return json;
}

/** Runs the library's own parse, so handlers see its output (defaults, transforms). */
export async function parseWithStandard(
  schema: StandardSchemaV1,
  value: unknown,
  root: string,
): Promise<{ ok: true; value: unknown } | { ok: false; problems: string[] }> {
  const result = await schema['~standard'].validate(value);
  if (!result.issues) return { ok: true, value: result.value };
  return {
    ok: false,
    // The library collected every issue; only the first few are described (format-errors.ts).
    problems: boundedProblems(result.issues, (issue) => {
      const path = (issue.path ?? []).map((seg) => (typeof seg === 'object' ? seg.key : seg));
      return `${[root, ...path.map(String)].join('.')}: ${issue.message}`;
    }),
  };
}
