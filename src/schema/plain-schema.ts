/**
 * Whether a schema is valid under both meta-schemas (2020-12 and draft-07) by a short walk,
 * without the meta-schema validator: true only for schemas made of a few keywords whose
 * meta-schema rules are simple and the same in both dialects. False means "not known here",
 * never "invalid": compileSchema then asks the real meta-schema validator, which also
 * words the error.
 *
 * Why: loading the precompiled 2020-12 meta-schema validator and its first run were ~6 ms of
 * a server's ~105 ms to its first answer, for tools whose schemas are mostly `type`,
 * `properties`, `required` and `description`. A test holds this walk to the real validators
 * on a corpus and on generated schemas (test/schema/plain-schema.test.ts): it may say false
 * for a valid schema, never true for an invalid one.
 */
export function isPlainlyValid(schema: Record<string, unknown>): boolean {
  return plainObject(schema, true);
}

export const TYPE_NAMES: ReadonlySet<string> = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

type Rule = (value: unknown) => boolean;
const isString: Rule = (v) => typeof v === 'string';
const isNumber: Rule = (v) => typeof v === 'number' && Number.isFinite(v);
const isCount: Rule = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const anything: Rule = () => true;
const isPrimitive: Rule = (v) => v === null || typeof v === 'string' || typeof v === 'boolean' || isNumber(v);

/** Each keyword the walk knows and what both meta-schemas require of its value. */
const RULES: Record<string, Rule> = {
  type: (v) =>
    typeof v === 'string'
      ? TYPE_NAMES.has(v)
      : Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === 'string' && TYPE_NAMES.has(t)) && new Set(v).size === v.length,
  properties: (v) => isRecord(v) && Object.values(v).every(subschema),
  required: (v) => Array.isArray(v) && v.every(isString) && new Set(v).size === v.length,
  additionalProperties: (v) => subschema(v),
  items: (v) => subschema(v),
  title: isString,
  description: isString,
  default: anything,
  examples: Array.isArray,
  // Ajv's draft-07 meta-schema also wants it non-empty and without duplicates; members other
  // than strings, numbers, booleans and null are left to the validator (deep equality).
  enum: (v) => Array.isArray(v) && v.length > 0 && v.every(isPrimitive) && new Set(v).size === v.length,
  const: anything,
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minProperties: isCount,
  maxProperties: isCount,
  uniqueItems: (v) => typeof v === 'boolean',
  // Where code cannot be generated (a Worker) this walk is the only meta-schema check there is
  // (compile.ts), so it also knows the other keywords whose rules both meta-schemas share.
  // Formats (`regex` of pattern and of patternProperties' names) the meta-schema validators do
  // not check either: a pattern that does not compile is refused when the schema compiles.
  format: isString,
  pattern: isString,
  multipleOf: (v) => isNumber(v) && (v as number) > 0,
  allOf: schemaList,
  anyOf: schemaList,
  oneOf: schemaList,
  not: (v) => subschema(v),
  if: (v) => subschema(v),
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable
  then: (v) => subschema(v),
  else: (v) => subschema(v),
  contains: (v) => subschema(v),
  propertyNames: (v) => subschema(v),
  patternProperties: (v) => isRecord(v) && Object.values(v).every(subschema),
  // draft-07's meta-schema does not know these three (any value passes it); 2020-12's rules.
  minContains: isCount,
  maxContains: isCount,
  dependentRequired: (v) =>
    isRecord(v) && Object.values(v).every((names) => Array.isArray(names) && names.every(isString) && new Set(names).size === names.length),
  $comment: isString,
  readOnly: (v) => typeof v === 'boolean',
  writeOnly: (v) => typeof v === 'boolean',
  deprecated: (v) => typeof v === 'boolean',
  contentMediaType: isString,
  contentEncoding: isString,
};

/** allOf, anyOf, oneOf: a non-empty array of schemas in both meta-schemas. */
function schemaList(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every(subschema);
}

function subschema(value: unknown): boolean {
  return typeof value === 'boolean' || (isRecord(value) && plainObject(value, false));
}

function plainObject(schema: Record<string, unknown>, root: boolean): boolean {
  for (const key in schema) {
    if (!Object.hasOwn(schema, key)) continue;
    // The root's $schema was checked by dialectOf (one of two known URIs); elsewhere it is left to the validator.
    if (key === '$schema' && root) continue;
    const rule = Object.hasOwn(RULES, key) ? RULES[key] : undefined;
    if (!rule?.(schema[key])) return false;
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
