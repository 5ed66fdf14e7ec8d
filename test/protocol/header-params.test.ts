import { describe, expect, it } from 'vitest';
import { decodeHeaderValue, encodeHeaderValue, headerMatchesValue, scanHeaderParams, valueAtPath } from '../../src/protocol/header-params.js';

describe('x-mcp-header declarations', () => {
  it('finds parameters reachable through properties, nested included', () => {
    const scan = scanHeaderParams({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        opts: { type: 'object', properties: { tenant: { type: 'integer', 'x-mcp-header': 'Tenant' } } },
      },
    });
    expect(scan).toEqual({
      ok: true,
      params: [
        { name: 'Region', path: ['region'], type: 'string' },
        { name: 'Tenant', path: ['opts', 'tenant'], type: 'integer' },
      ],
    });
  });

  it.each([
    ['an empty name', { a: { type: 'string', 'x-mcp-header': '' } }, /non-empty/],
    ['a name with a space', { a: { type: 'string', 'x-mcp-header': 'Bad Name' } }, /token/],
    ['a number parameter', { a: { type: 'number', 'x-mcp-header': 'A' } }, /string, integer or boolean/],
    ['a duplicate (case-insensitive)', { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } }, /declared twice/],
  ])('rejects %s', (_label, properties, reason) => {
    const scan = scanHeaderParams({ type: 'object', properties });
    expect(scan.ok).toBe(false);
    expect((scan as { reason: string }).reason).toMatch(reason);
  });

  it('rejects declarations under items, composition keywords or $defs', () => {
    for (const schema of [
      { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } } },
      { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] },
      { type: 'object', $defs: { a: { type: 'string', 'x-mcp-header': 'A' } } },
    ]) {
      expect(scanHeaderParams(schema)).toMatchObject({ ok: false, reason: expect.stringMatching(/statically reachable/) });
    }
  });

  it('reads values at a path, treating null as absent', () => {
    expect(valueAtPath({ a: { b: 3 } }, ['a', 'b'])).toBe(3);
    expect(valueAtPath({ a: null }, ['a'])).toBeUndefined();
    expect(valueAtPath({ a: 1 }, ['a', 'b'])).toBeUndefined();
  });
});

describe('header value encoding', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])('encodes %j as the spec example shows', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
    expect(decodeHeaderValue(encoded)).toBe(value);
  });

  it('refuses invalid characters and bad base64', () => {
    expect(decodeHeaderValue('a\u0001b')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?***?=')).toBeUndefined();
  });

  it('compares integers numerically and booleans as lowercase words', () => {
    expect(headerMatchesValue('42.0', 42)).toBe(true);
    expect(headerMatchesValue('41', 42)).toBe(false);
    expect(headerMatchesValue('true', true)).toBe(true);
    expect(headerMatchesValue('True', true)).toBe(false);
  });
});
