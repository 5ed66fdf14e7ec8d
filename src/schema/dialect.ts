/**
 * JSON Schema dialects (spec basic/index "Schema Dialect"): 2020-12 when no
 * `$schema` is given, draft-07 when declared; anything else is refused.
 */
export type Dialect = '2020-12' | 'draft-07';

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

export function dialectOf(schema: Record<string, unknown>): Dialect {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared === 'string' && DRAFT_2020.test(declared)) return '2020-12';
  if (typeof declared === 'string' && DRAFT_07.test(declared)) return 'draft-07';
  throw new SchemaError(`unsupported JSON Schema dialect ${JSON.stringify(declared)}; use 2020-12 (the default) or draft-07`);
}

export class SchemaError extends Error {
  /**
   * The keys at fault, when the schema failed its meta-schema: a path within
   * the schema (`properties.a.type`, '' for the root) and what is allowed there,
   * so that a caller can name the schema's own place (`inputSchema.properties.a.type`).
   */
  readonly problems: readonly { path: string; message: string }[];

  constructor(message: string, problems: readonly { path: string; message: string }[] = []) {
    super(message);
    this.name = 'SchemaError';
    this.problems = problems;
  }
}
