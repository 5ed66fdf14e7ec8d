import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The meta-schema validators generated at build time must judge schemas
 * exactly as Ajv's own meta-validation does (which runs when they are absent).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const generated = { v2020: `${root}dist/schema/meta-2020.cjs`, v07: `${root}dist/schema/meta-07.cjs` };
type Meta = ((schema: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };
let meta: { v2020: Meta; v07: Meta };

beforeAll(() => {
  if (!existsSync(generated.v2020) || !existsSync(generated.v07)) execFileSync(process.execPath, [`${root}scripts/build-meta-validators.mjs`]);
  const load = createRequire(import.meta.url);
  meta = { v2020: load(generated.v2020), v07: load(generated.v07) };
});

const schemas: unknown[] = [
  { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
  { type: 'object', properties: { n: { type: 'nonsense' } } },
  { type: 'object', properties: { a: { minimum: 'x' } } },
  { type: 'object', required: 'a' },
  { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string', pattern: '^a' } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable
  { type: 'object', allOf: [{ anyOf: [{ required: ['p'] }, { required: ['e'] }] }], if: { properties: { c: { const: 'p' } } }, then: { required: ['p'] } },
  { type: 'object', additionalProperties: 7 },
  { type: 'array', prefixItems: [{ type: 'string' }], items: false },
  { type: 'object', $anchor: '1bad' },
  { type: 'object', properties: { e: { type: 'string', format: 'email', 'x-sensitive': true } } },
];

describe('generated meta-schema validators', () => {
  it.each(schemas.map((s) => [JSON.stringify(s), s]))('agree with Ajv on %s (2020-12)', (_label, schema) => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    expect(meta.v2020(schema)).toBe(ajv.validateSchema(schema as object) as boolean);
  });

  it.each(schemas.map((s) => [JSON.stringify(s), s]))('agree with Ajv on %s (draft-07)', (_label, schema) => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    expect(meta.v07(schema)).toBe(ajv.validateSchema(schema as object) as boolean);
  });

  it('name the offending keyword', () => {
    expect(meta.v2020({ type: 'object', properties: { a: { minimum: 'x' } } })).toBe(false);
    expect(meta.v2020.errors?.map((e) => `${e.instancePath} ${e.message}`)).toContain('/properties/a/minimum must be number');
  });
});
