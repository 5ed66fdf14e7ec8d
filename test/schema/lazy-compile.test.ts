import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSchema, warmValidator } from '../../src/schema/compile.js';
import { SchemaError } from '../../src/schema/dialect.js';

/**
 * Ajv compiles a schema on its validator's first call, to keep it out of
 * start-up; the checks at compileSchema time must still refuse every schema
 * Ajv could not compile.
 */
describe('compileSchema refuses at once what Ajv could not compile', () => {
  it('a pattern that is not a Unicode regular expression, naming where it is', () => {
    expect(() => compileSchema({ type: 'object', properties: { code: { type: 'string', pattern: '([a-z]' } } })).toThrow(
      'the schema does not compile: /properties/code/pattern: Invalid regular expression: /([a-z]/u: Unterminated group',
    );
    // Valid without the u flag, but Ajv compiles patterns with it.
    expect(() => compileSchema({ type: 'string', pattern: '\\-' })).toThrow(/\/pattern: Invalid regular expression: .*Invalid escape/);
    expect(() => compileSchema({ type: 'object', patternProperties: { '^x-(': {} } })).toThrow(
      /the schema does not compile: \/patternProperties\/\^x-\(: Invalid regular expression/,
    );
  });

  it('a JSON Pointer $ref that leads nowhere', () => {
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })).toThrow(
      'the schema does not compile: /properties/a/$ref: "#/$defs/missing" does not resolve: the schema has nothing at that path',
    );
    expect(() => compileSchema({ type: 'object', $defs: { n: { $ref: '#/$defs/gone' } } })).toThrow(/\/\$defs\/n\/\$ref: "#\/\$defs\/gone" does not resolve/);
    expect(() => compileSchema({ type: 'object', allOf: [{}], properties: { a: { $ref: '#/allOf/1' } } })).toThrow(/does not resolve/);
  });

  it('an anchor, $id or $dynamicRef that matches nothing', () => {
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: '#nowhere' } } })).toThrow(
      'the schema does not compile: /properties/a/$ref: "#nowhere" matches no "$anchor" in the schema',
    );
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: 'other.json' } } })).toThrow(
      /\/properties\/a\/\$ref: "other.json" matches no "\$id" in the schema/,
    );
    expect(() => compileSchema({ type: 'object', properties: { a: { $dynamicRef: '#/$defs/none' } } })).toThrow(
      /\/properties\/a\/\$dynamicRef: .* does not resolve/,
    );
    expect(() => compileSchema({ type: 'object', properties: { a: { $dynamicRef: 'b.json#node' } } })).toThrow(/must be a fragment/);
  });

  it('what the validator cannot resolve although the spec allows it, and two schemas under one name', () => {
    expect(() => compileSchema({ type: 'object', properties: { self: { $ref: '#' } } })).toThrow(
      /refers to the whole schema, which the validator supports only as "#" and when the root schema has an "\$id"/,
    );
    expect(() => compileSchema({ $anchor: 'top', type: 'object', properties: { self: { $ref: '#top' } } })).toThrow(/names an anchor of the root schema/);
    expect(() => compileSchema({ type: 'object', $defs: { a: { $anchor: 'x' }, b: { $anchor: 'x' } } })).toThrow(
      'the schema does not compile: /$defs/b/$anchor: "x" is already declared at /$defs/a',
    );
  });

  it('the meta-schema speaks first about malformed keywords', () => {
    expect(() => compileSchema({ type: 'string', pattern: 5 })).toThrow('the schema is invalid: pattern: must be a string holding a regular expression; got 5');
  });
});

describe('compileSchema accepts', () => {
  it('local $defs, anchors and $id-relative references, and validates through them on every call', () => {
    const v = compileSchema({
      $id: 'https://example.com/schemas/order.json',
      type: 'object',
      $defs: {
        qty: { type: 'integer', minimum: 1 },
        'a/b~c': { type: 'string' },
        sku: { $anchor: 'sku', type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
        money: { $id: 'money.json', type: 'object', properties: { cents: { $ref: '#/$defs/int' } }, required: ['cents'], $defs: { int: { type: 'integer' } } },
      },
      properties: {
        qty: { $ref: '#/$defs/qty' },
        note: { $ref: '#/$defs/a~1b~0c' },
        sku: { $ref: '#sku' },
        price: { $ref: 'money.json' },
        cents: { $ref: 'money.json#/$defs/int' },
        self: { $ref: '#' },
      },
    });
    expect(v({ qty: 2, note: 'n', sku: 'ABC-1', price: { cents: 5 }, cents: 3, self: {} })).toEqual({ ok: true });
    expect(v({ qty: 0, sku: 'abc', price: {}, cents: 1.5, self: { qty: 'x' } })).toEqual({
      ok: false,
      problems: [
        'arguments.qty: must be >= 1',
        'arguments.sku: must match pattern "^[A-Z]{3}-\\d+$"',
        'arguments.price.cents: required field is missing',
        'arguments.cents: expected integer',
        'arguments.self.qty: expected integer',
      ],
    });
    expect(v({ qty: 1 })).toEqual({ ok: true });
  });

  it('recursion through $defs, and $dynamicRef to a dynamic anchor of the root', () => {
    const tree = compileSchema({
      $ref: '#/$defs/node',
      $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
    });
    expect(tree({ kids: [{ kids: [] }] }).ok).toBe(true);
    expect(tree({ kids: [{ kids: 1 }] }).ok).toBe(false);
    const dynamic = compileSchema({ $dynamicAnchor: 'node', type: 'object', properties: { child: { $dynamicRef: '#node' } } });
    expect(dynamic({ child: { child: {} } }).ok).toBe(true);
  });

  it('draft-07 anchors written as $id', () => {
    const v = compileSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { n: { $id: '#num', type: 'number' } },
      properties: { a: { $ref: '#num' } },
    });
    expect(v({ a: 'x' }).ok).toBe(false);
  });

  it('look-alikes in instance data and unknown keywords', () => {
    const v = compileSchema({
      type: 'object',
      properties: { pattern: { type: 'string' }, $ref: { type: 'string' } },
      default: { pattern: '(', $ref: '#/nowhere' },
      examples: [{ pattern: '[' }],
      'x-ui': { pattern: '(' },
    });
    expect(v({ pattern: '(', $ref: '#/nowhere' })).toEqual({ ok: true });
  });
});

describe('the validator compiles on first use', () => {
  it('enforces the schema as it was checked, even if the caller changes the object afterwards', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    const v = compileSchema(schema);
    schema.properties.n.type = 'string';
    expect(v({ n: 1 })).toEqual({ ok: true });
  });

  it('a schema the checks let through but Ajv cannot compile throws the same SchemaError on every call', () => {
    // Ajv does not register anchors inside prefixItems, so it cannot resolve "#first" (if it ever
    // learns to, this test needs another schema the checks miss).
    const v = compileSchema({ type: 'array', prefixItems: [{ $anchor: 'first', type: 'number' }], items: { $ref: '#first' } });
    const first = thrownBy(() => v([1]));
    expect(first).toBeInstanceOf(SchemaError);
    expect((first as Error).message).toBe("the schema does not compile: can't resolve reference #first from id #");
    expect(thrownBy(() => v([1]))).toBe(first);
    expect(thrownBy(() => warmValidator(v))).toBe(first);
  });
});

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('start-up cost', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const built = `${root}dist/schema/compile.js`;

  beforeAll(() => {
    // npm test builds first (pretest); rebuilding here would race the other tests that load dist/.
    if (!existsSync(built) || !existsSync(`${root}dist/schema/meta-2020.cjs`)) throw new Error('dist/ is missing: run `npm run build` first');
  });

  // A real, fresh Node process (the module cache of this one already holds Ajv): registers a
  // schema, then either calls the validator or warms it, counting the Ajv compiler modules loaded.
  const run = (then: 'call' | 'warm') => {
    const script = `
      import { createRequire } from 'node:module';
      import { compileSchema, warmValidator } from ${JSON.stringify(built)};
      const cache = createRequire(${JSON.stringify(built)}).cache;
      // The precompiled meta-schema validators are self-contained: any Ajv module loaded is the compiler's.
      const ajvCompiler = () => Object.keys(cache).filter((k) => /[\\\\/]ajv[\\\\/]dist[\\\\/]/.test(k)).length;
      const v = compileSchema({ type: 'object', $defs: { n: { type: 'number' } }, properties: { a: { $ref: '#/$defs/n' }, e: { type: 'string', format: 'email', pattern: '^a' } } });
      const atRegistration = ajvCompiler();
      const loaded = Object.keys(cache);
      const precompiledMeta = loaded.some((k) => k.endsWith('meta-2020.cjs')) && !loaded.some((k) => k.endsWith('meta-07.cjs'));
      const outcome = ${JSON.stringify(then)} === 'call' ? v({ a: 'x' }) : warmValidator(v);
      console.log(JSON.stringify({ atRegistration, precompiledMeta, after: ajvCompiler(), outcome: outcome ?? null }));
    `;
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  };

  it('compileSchema loads no Ajv compiler: only calling the validator does', () => {
    const out = run('call');
    expect(out).toEqual({
      atRegistration: 0,
      precompiledMeta: true,
      after: expect.any(Number),
      outcome: { ok: false, problems: ['arguments.a: expected number'] },
    });
    expect(out.after).toBeGreaterThan(0);
  });

  it('warmValidator compiles before any call', () => {
    const out = run('warm');
    expect(out).toMatchObject({ atRegistration: 0, precompiledMeta: true, outcome: null });
    expect(out.after).toBeGreaterThan(0);
  });
});
