import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSchemaEngine, type SchemaEngine } from '../../src/schema/code-generation.js';
import { compileSchema } from '../../src/schema/compile.js';

// The two engines behind compileSchema: Ajv's generated code (the default wherever `new Function`
// is allowed) and @cfworker/json-schema's interpreter (where it is not: Workers). A client must
// read the same verdict and the same problems whichever ran, so every case runs through both.
const ENGINES: SchemaEngine[] = ['compiled', 'interpreted'];

const ORDER = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5 },
    qty: { type: 'integer', minimum: 1, maximum: 10 },
    price: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 100 },
    mode: { enum: ['fast', 'slow'] },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
    kind: { const: 'order' },
    either: { type: ['string', 'null'] },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    email: { type: 'string', format: 'email' },
    nested: { type: 'object', properties: { deep: { type: 'boolean' } }, required: ['deep'], additionalProperties: false },
    'odd key': { type: 'number' },
  },
  required: ['name', 'qty'],
  additionalProperties: false,
} as const;

// [what, schema, value, the problems a client reads (empty: valid)]
const CASES: Array<[string, object, unknown, string[]]> = [
  ['valid', ORDER, { name: 'ab', qty: 3, mode: 'fast', tags: ['x'], kind: 'order', either: null, nested: { deep: true } }, []],
  ['required', ORDER, {}, ['arguments.name: required field is missing', 'arguments.qty: required field is missing']],
  ['type', ORDER, { name: 5, qty: 1.5 }, ['arguments.name: expected string', 'arguments.qty: expected integer']],
  ['a type list', ORDER, { name: 'ab', qty: 1, either: 3 }, ['arguments.either: expected string,null']],
  ['a root of the wrong type', ORDER, [1], ['arguments: expected object']],
  ['enum', ORDER, { name: 'ab', qty: 1, mode: 'medium' }, ['arguments.mode: expected one of "fast", "slow"']],
  ['const', ORDER, { name: 'ab', qty: 1, kind: 'invoice' }, ['arguments.kind: expected "order"']],
  ['minimum and minLength', ORDER, { name: 'a', qty: 0 }, ['arguments.name: must NOT have fewer than 2 characters', 'arguments.qty: must be >= 1']],
  ['maximum and maxLength', ORDER, { name: 'abcdef', qty: 11 }, ['arguments.name: must NOT have more than 5 characters', 'arguments.qty: must be <= 10']],
  ['exclusive bounds', ORDER, { name: 'ab', qty: 1, price: 0 }, ['arguments.price: must be > 0']],
  ['exclusive bounds (upper)', ORDER, { name: 'ab', qty: 1, price: 100 }, ['arguments.price: must be < 100']],
  [
    'item bounds and item types',
    ORDER,
    { name: 'ab', qty: 1, tags: ['a', 2, 'c'] },
    ['arguments.tags: must NOT have more than 2 items', 'arguments.tags[1]: expected string'],
  ],
  ['minItems', ORDER, { name: 'ab', qty: 1, tags: [] }, ['arguments.tags: must NOT have fewer than 1 items']],
  ['pattern', ORDER, { name: 'ab', qty: 1, code: 'abc' }, ['arguments.code: must match pattern "^[A-Z]{3}$"']],
  ['format', ORDER, { name: 'ab', qty: 1, email: 'not an address' }, ['arguments.email: must match format "email"']],
  [
    'additionalProperties, at the root and nested',
    ORDER,
    { name: 'ab', qty: 1, extra: 1, 'odd key': 'x', nested: { deep: 1, more: 2 } },
    [
      'arguments.extra: unexpected field (not allowed by the schema)',
      'arguments.nested.deep: expected boolean',
      'arguments.nested.more: unexpected field (not allowed by the schema)',
      'arguments["odd key"]: expected number',
    ],
  ],
  [
    'local $refs, anchors and $id-relative references',
    {
      $id: 'https://example.com/schemas/order.json',
      type: 'object',
      $defs: {
        qty: { type: 'integer', minimum: 1 },
        sku: { $anchor: 'sku', type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
        money: { $id: 'money.json', type: 'object', properties: { cents: { $ref: '#/$defs/int' } }, required: ['cents'], $defs: { int: { type: 'integer' } } },
      },
      properties: { qty: { $ref: '#/$defs/qty' }, sku: { $ref: '#sku' }, price: { $ref: 'money.json' }, self: { $ref: '#' } },
    },
    { qty: 0, sku: 'abc', price: { cents: 1.5 }, self: { qty: 'x' } },
    [
      'arguments.price.cents: expected integer',
      'arguments.qty: must be >= 1',
      'arguments.self.qty: expected integer',
      'arguments.sku: must match pattern "^[A-Z]{3}-\\d+$"',
    ],
  ],
  [
    'draft-07 tuples',
    { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'number' }], additionalItems: false, maxItems: 1 },
    ['x'],
    ['arguments[0]: expected number'],
  ],
];

describe.each(ENGINES)('compileSchema with the %s engine', (engine) => {
  it.each(CASES)('%s: the same verdict and problems as the other engine', (_what, schema, value, problems) => {
    const outcome = compileSchema(schema, { engine })(value);
    if (problems.length === 0) expect(outcome).toEqual({ ok: true });
    else expect(outcome.ok ? [] : [...outcome.problems].sort()).toEqual(problems);
  });

  it("keeps toolwright's schema rules: bounds, no network $ref, meta-schema, closed names", () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { anyOf: [deep] };
    expect(() => compileSchema(deep, { engine })).toThrow(/deeper than/);
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } }, { engine })).toThrow(
      /network references are never fetched/,
    );
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, { engine })).toThrow(/does not compile/);
    expect(() => compileSchema({ type: 'string', pattern: 5 }, { engine })).toThrow(
      'the schema is invalid: pattern: must be a string holding a regular expression; got 5',
    );
    const closed = compileSchema({ type: 'object', properties: { a: { type: 'number' } }, additionalProperties: false }, { engine });
    const flood = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`k${i}`, i]));
    const outcome = closed(flood);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.problems.at(-1)).toMatch(/… and \d+ more problems/);
  });

  it('judges values JSON would not carry (structured output built in code) as JSON carries them', () => {
    const v = compileSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['b'] }, { engine });
    expect(v({ a: undefined, b: 1, f: () => 1 })).toEqual({ ok: true });
    expect(v({ a: undefined, b: 'x' })).toEqual({ ok: false, problems: ['arguments.b: expected number'] });
  });

  it('lets two schemas share a $id without colliding', () => {
    const a = compileSchema({ $id: 'https://example.com/same.json', type: 'object' }, { engine });
    const b = compileSchema({ $id: 'https://example.com/same.json', type: 'array' }, { engine });
    expect(a({}).ok).toBe(true);
    expect(b({}).ok).toBe(false);
  });
});

describe('choosing the engine', () => {
  it('is Ajv on Node, where code generation is allowed (the faster engine)', () => {
    expect(defaultSchemaEngine()).toBe('compiled');
  });

  it('is the interpreter, with the same problems, where code generation is forbidden (as in a Worker)', () => {
    const built = join(import.meta.dirname, '../../dist/schema/compile.js');
    if (!existsSync(built)) throw new Error('this test runs the built package: run `npm run build` first');
    // --disallow-code-generation-from-strings: `new Function` throws, as it does in workerd.
    const program = `
      import { compileSchema } from ${JSON.stringify(built)};
      const v = compileSchema({ type: 'object', properties: { n: { type: 'integer', maximum: 10 }, m: { type: 'string' } }, required: ['n', 'm'], additionalProperties: false });
      console.log(JSON.stringify([v({ n: 11, x: 1 }), v({ n: 1, m: 'y' }), v({ n: 1, m: 2 })]));`;
    const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', program], { encoding: 'utf8' });
    const [bad, good, wrongType] = JSON.parse(out);
    expect(bad.ok).toBe(false);
    expect([...bad.problems].sort()).toEqual([
      'arguments.m: required field is missing',
      'arguments.n: must be <= 10',
      'arguments.x: unexpected field (not allowed by the schema)',
    ]);
    expect(good).toEqual({ ok: true });
    expect(wrongType).toEqual({ ok: false, problems: ['arguments.m: expected string'] });
  });
});
