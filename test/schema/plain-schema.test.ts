import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../src/schema/compile.js';
import { SchemaError } from '../../src/schema/dialect.js';
import { isPlainlyValid } from '../../src/schema/plain-schema.js';

/**
 * isPlainlyValid lets compileSchema skip the meta-schema validator. It may say false for a
 * valid schema (the validator then decides), never true for a schema either meta-schema
 * refuses: held here to Ajv's own meta-validation, on a corpus and on generated schemas.
 */
const ajv2020 = new Ajv2020({ allErrors: true, strict: false });
const ajv07 = new Ajv({ allErrors: true, strict: false });
/** Valid under both meta-schemas, or under draft-07's alone when the schema declares it (as compileSchema checks it). */
const validUnderBoth = (schema: Record<string, unknown>) =>
  typeof schema.$schema === 'string' && schema.$schema.includes('draft-07')
    ? (ajv07.validateSchema(schema) as boolean)
    : (ajv2020.validateSchema(schema) as boolean) && (ajv07.validateSchema(schema) as boolean);

const corpus: Array<Record<string, unknown>> = [
  { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  {
    type: 'object',
    properties: { text: { type: 'string', description: 'what to echo', minLength: 1, maxLength: 10 } },
    required: ['text'],
    additionalProperties: false,
  },
  { type: ['string', 'null'] },
  { type: [] },
  { type: ['string', 'string'] },
  { type: 'nonsense' },
  { type: 'object', required: 'a' },
  { type: 'object', required: ['a', 'a'] },
  { type: 'object', required: [1] },
  { type: 'object', properties: { a: { minimum: 'x' } } },
  { type: 'object', properties: { a: true, b: false } },
  { type: 'object', properties: [] },
  { type: 'object', additionalProperties: 7 },
  { type: 'array', items: { type: 'integer', minimum: 0, exclusiveMaximum: 10 }, minItems: 1.5 },
  { type: 'array', items: [{ type: 'string' }] },
  { type: 'string', enum: 'a' },
  { type: 'string', enum: [] },
  { type: 'number', maximum: Infinity },
  { type: 'string', maxLength: -1 },
  { type: 'object', uniqueItems: 'yes' },
  { type: 'object', title: 3 },
  { type: 'object', examples: {} },
  { type: 'object', properties: { nested: { type: 'object', properties: { deeper: { type: 'array', items: { enum: [1, 'a', null] } } } } } },
  { type: 'object', $schema: 'http://json-schema.org/draft-07/schema#' },
  { type: 'object', properties: { a: { $schema: 'not a uri at all' } } },
  JSON.parse('{"type":"object","__proto__":{"type":"nonsense"}}'),
  { type: 'object', pattern: '(' },
];

describe('isPlainlyValid', () => {
  it.each(corpus.map((s) => [JSON.stringify(s), s]))('never says true where a meta-schema says no: %s', (_label, schema) => {
    if (isPlainlyValid(schema)) expect(validUnderBoth(schema)).toBe(true);
  });

  it('knows the combinators, conditionals, patterns and annotations both meta-schemas share (the only meta-schema check in a Worker)', () => {
    const richer = {
      type: 'object',
      $comment: 'an order',
      properties: {
        sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$', readOnly: true },
        qty: { type: 'integer', multipleOf: 1, minimum: 1 },
        note: { anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }], deprecated: true },
        tags: { type: 'array', contains: { const: 'priority' }, minContains: 1, maxContains: 2 },
        blob: { type: 'string', contentMediaType: 'image/png', contentEncoding: 'base64', writeOnly: true },
      },
      patternProperties: { '^x-': { type: 'string' } },
      propertyNames: { maxLength: 40 },
      dependentRequired: { qty: ['sku'] },
      if: { properties: { qty: { minimum: 100 } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable
      then: { required: ['note'] },
      else: { not: { required: ['blob'] } },
      allOf: [{ oneOf: [{ required: ['sku'] }, { required: ['blob'] }] }],
    };
    expect(isPlainlyValid(richer)).toBe(true);
    expect(validUnderBoth(richer)).toBe(true);
    for (const invalid of [
      { anyOf: [] },
      { oneOf: {} },
      { allOf: [{ type: 'nonsense' }] },
      { not: 3 },
      { multipleOf: 0 },
      { multipleOf: -2 },
      { pattern: 5 },
      { patternProperties: { '^a': { minimum: 'x' } } },
      { dependentRequired: { a: ['b', 'b'] } },
      { readOnly: 'yes' },
      { minContains: -1 },
      { if: { type: 'nonsense' } },
    ]) {
      expect(isPlainlyValid(invalid), JSON.stringify(invalid)).toBe(false);
      expect(validUnderBoth(invalid), JSON.stringify(invalid)).toBe(false);
    }
  });

  it('says true for the schemas most tools have, so they skip the meta-schema validator', () => {
    expect(isPlainlyValid(corpus[0])).toBe(true);
    expect(isPlainlyValid(corpus[1])).toBe(true);
    expect(isPlainlyValid({ type: 'object', properties: { when: { type: 'string', enum: ['now', 'later'], default: 'now' } } })).toBe(true);
  });

  it('agrees with both meta-schemas on 6,000 generated schemas whenever it says true', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const values: unknown[] = [
      'string',
      'object',
      'nonsense',
      0,
      -1,
      1.5,
      3,
      true,
      null,
      [],
      ['a'],
      ['a', 'a'],
      [1],
      ['a', 1, null],
      [{}],
      [[1], [1]],
      ['string', 'null'],
      {},
      { type: 'string' },
      Infinity,
      'x',
      '^[a-z]+$',
      '(',
      0.5,
      [{ type: 'string' }, true],
      [{ type: 'nonsense' }],
      { '^a': { type: 'string' }, '(': false },
      { '^a': { type: 'nonsense' } },
      { a: ['b', 'c'] },
      { a: ['b', 'b'] },
      { a: 'b' },
    ];
    const keywords = [
      'type',
      'properties',
      'required',
      'additionalProperties',
      'items',
      'title',
      'description',
      'default',
      'examples',
      'enum',
      'const',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'minLength',
      'maxLength',
      'minItems',
      'maxItems',
      'minProperties',
      'maxProperties',
      'uniqueItems',
      'format',
      '$ref',
      'pattern',
      'multipleOf',
      'allOf',
      'anyOf',
      'oneOf',
      'not',
      'if',
      'then',
      'else',
      'contains',
      'propertyNames',
      'patternProperties',
      'minContains',
      'maxContains',
      'dependentRequired',
      '$comment',
      'readOnly',
      'writeOnly',
      'deprecated',
      'contentMediaType',
      'contentEncoding',
    ];
    const oneSchema = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']);
    const schemaLists = new Set(['allOf', 'anyOf', 'oneOf']);
    const generate = (depth: number): Record<string, unknown> => {
      const schema: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 4); i >= 0; i--) {
        const key = pick(keywords);
        if ((key === 'properties' || key === 'patternProperties' || oneSchema.has(key) || schemaLists.has(key)) && depth < 3 && random() < 0.7) {
          if (key === 'properties' || key === 'patternProperties') schema[key] = { a: generate(depth + 1), b: pick([true, false, generate(depth + 1)]) };
          else if (schemaLists.has(key)) schema[key] = [generate(depth + 1), pick([true, generate(depth + 1)])];
          else schema[key] = generate(depth + 1);
        } else {
          schema[key] = pick(values);
        }
      }
      return schema;
    };
    let plain = 0;
    for (let i = 0; i < 6_000; i++) {
      const schema = generate(0);
      if (!isPlainlyValid(schema)) continue;
      plain++;
      expect(validUnderBoth(schema), JSON.stringify(schema)).toBe(true);
    }
    expect(plain).toBeGreaterThan(150); // the walk was exercised, not just skipped
  });

  it('leaves the refusal and its wording to the meta-schema validator', () => {
    expect(() => compileSchema({ type: 'object', properties: { n: { type: 'nonsense' } } })).toThrow(SchemaError);
    expect(() => compileSchema({ type: 'object', required: ['a', 'a'] })).toThrow(
      'the schema is invalid: required: must list property names as strings, each once',
    );
  });
});
