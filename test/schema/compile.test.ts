import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../src/schema/compile.js';

describe('compileSchema', () => {
  it('uses 2020-12 by default (prefixItems is understood)', () => {
    const v = compileSchema({ type: 'array', prefixItems: [{ type: 'number' }], items: false });
    expect(v([1]).ok).toBe(true);
    expect(v([1, 2]).ok).toBe(false);
  });

  it('uses draft-07 when declared (items as an array is a tuple)', () => {
    const v = compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'number' }], additionalItems: false });
    expect(v([1]).ok).toBe(true);
    expect(v(['x']).ok).toBe(false);
  });

  it('refuses unknown dialects with a clear message', () => {
    expect(() => compileSchema({ $schema: 'http://json-schema.org/draft-04/schema#' })).toThrow(/unsupported JSON Schema dialect/);
  });

  it('never fetches network $refs: such schemas are refused', () => {
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } })).toThrow(/network references are never fetched/);
  });

  it('resolves local $refs', () => {
    const v = compileSchema({ type: 'object', $defs: { n: { type: 'number' } }, properties: { a: { $ref: '#/$defs/n' } } });
    expect(v({ a: 'x' })).toEqual({ ok: false, problems: ['arguments.a: expected number'] });
  });

  it('bounds depth and size', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { anyOf: [deep] };
    expect(() => compileSchema(deep)).toThrow(/deeper than/);
    const wide = { anyOf: Array.from({ length: 6000 }, () => ({ type: 'string' })) };
    expect(() => compileSchema(wide)).toThrow(/more than/);
  });

  it('reports every offending field in one pass', () => {
    const v = compileSchema({
      type: 'object',
      properties: { a: { type: 'number' }, mode: { enum: ['fast', 'slow'] }, list: { type: 'array', items: { type: 'integer' } } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
    const outcome = v({ a: 'x', mode: 'medium', list: [1, 'two'], extra: true });
    expect(outcome.ok).toBe(false);
    expect((outcome as { problems: string[] }).problems.sort()).toEqual([
      'arguments.a: expected number',
      'arguments.b: required field is missing',
      'arguments.extra: unexpected field (not allowed by the schema)',
      'arguments.list[1]: expected integer',
      'arguments.mode: expected one of "fast", "slow"',
    ]);
  });

  it('checks formats (loaded on demand) in both dialects', () => {
    const v = compileSchema({ type: 'object', properties: { email: { type: 'string', format: 'email' } } });
    expect(v({ email: 'not an address' })).toEqual({ ok: false, problems: ['arguments.email: must match format "email"'] });
    expect(v({ email: 'ada@example.com' }).ok).toBe(true);
    const d = compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string', format: 'date' });
    expect(d('2026-02-30x').ok).toBe(false);
  });

  it('lets tools share a $id without colliding', () => {
    const a = compileSchema({ $id: 'https://example.com/same.json', type: 'object' });
    const b = compileSchema({ $id: 'https://example.com/same.json', type: 'array' });
    // Ajv compiles on first use: both must compile, each keeping its own schema.
    expect(a({}).ok).toBe(true);
    expect(b({}).ok).toBe(false);
    expect(b([]).ok).toBe(true);
  });
});
