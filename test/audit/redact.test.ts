import { describe, expect, it } from 'vitest';
import { auditArgumentsJson, MAX_AUDIT_ARGUMENT_BYTES, MAX_AUDIT_STRING_CHARS } from '../../src/audit/arguments.js';
import { isSecretKey, redactArguments, REDACTED } from '../../src/audit/redact.js';

describe('secret-looking keys', () => {
  it.each([
    'token',
    'password',
    'passwd',
    'secret',
    'apiKey',
    'api_key',
    'API-KEY',
    'Authorization',
    'cookie',
    'credential',
    'credentials',
    'private_key',
    'privateKey',
    'access_token',
    'refreshToken',
    'client_secret',
    'db_password',
    'passwordHash',
    'x-api-key',
    'Set-Cookie',
    'aws_secret_access_key',
    'auth',
  ])('%s is redacted', (key) => expect(isSecretKey(key)).toBe(true));

  it.each(['maxTokens', 'max_tokens', 'path', 'text', 'author', 'tokenizer', 'query', 'keyword', 'cwd', ''])('%s is kept', (key) =>
    expect(isSecretKey(key)).toBe(false),
  );

  it('are redacted at any depth, in objects and arrays, whatever their value', () => {
    const args = {
      user: 'ada',
      headers: { Authorization: 'Bearer abc', accept: 'json' },
      accounts: [
        { name: 'a', password: 'p1' },
        { name: 'b', apiKey: { nested: 'x' } },
      ],
      config: { deeper: { client_secret: 42, keep: true } },
    };
    expect(redactArguments(args)).toEqual({
      user: 'ada',
      headers: { Authorization: REDACTED, accept: 'json' },
      accounts: [
        { name: 'a', password: REDACTED },
        { name: 'b', apiKey: REDACTED },
      ],
      config: { deeper: { client_secret: REDACTED, keep: true } },
    });
    expect(args.headers.Authorization).toBe('Bearer abc'); // the call's own arguments are untouched
  });
});

describe('properties marked "x-sensitive" in the input schema', () => {
  it('are redacted through properties and items', () => {
    const schema = {
      type: 'object',
      properties: {
        dsn: { type: 'string', 'x-sensitive': true },
        hosts: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, pin: { type: 'string', 'x-sensitive': true } } } },
        notes: { type: 'string' },
      },
    };
    const args = {
      dsn: 'postgres://u:p@h/db',
      hosts: [
        { name: 'a', pin: '1234' },
        { name: 'b', pin: '5678' },
      ],
      notes: 'hi',
    };
    expect(redactArguments(args, schema)).toEqual({
      dsn: REDACTED,
      hosts: [
        { name: 'a', pin: REDACTED },
        { name: 'b', pin: REDACTED },
      ],
      notes: 'hi',
    });
  });

  it('are found through a local $ref to $defs, and through anyOf branches', () => {
    const schema = {
      type: 'object',
      $defs: {
        Login: { type: 'object', properties: { user: { type: 'string' }, otp: { $ref: '#/$defs/Otp' } } },
        Otp: { type: 'string', 'x-sensitive': true },
      },
      properties: {
        login: { $ref: '#/$defs/Login' },
        either: { anyOf: [{ type: 'string' }, { type: 'object', properties: { pem: { type: 'string', 'x-sensitive': true } } }] },
      },
    };
    expect(redactArguments({ login: { user: 'ada', otp: '999111' }, either: { pem: '-----BEGIN' } }, schema)).toEqual({
      login: { user: 'ada', otp: REDACTED },
      either: { pem: REDACTED },
    });
  });

  it('apply to additionalProperties and patternProperties, and whole sensitive objects', () => {
    const schema = {
      type: 'object',
      properties: { env: { type: 'object', additionalProperties: { type: 'string', 'x-sensitive': true } }, vault: { type: 'object', 'x-sensitive': true } },
      patternProperties: { '^pin_': { 'x-sensitive': true } },
    };
    expect(redactArguments({ env: { HOME: '/h', DB: 'x' }, vault: { a: 1 }, pin_1: '0000', other: 'ok' }, schema)).toEqual({
      env: { HOME: REDACTED, DB: REDACTED },
      vault: REDACTED,
      pin_1: REDACTED,
      other: 'ok',
    });
  });

  it('a $ref cycle does not loop', () => {
    const schema = { $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' }, key: { 'x-sensitive': true } } } }, $ref: '#/$defs/Node' };
    expect(redactArguments({ key: 'a', next: { key: 'b', next: { key: 'c' } } }, schema)).toEqual({
      key: REDACTED,
      next: { key: REDACTED, next: { key: REDACTED } },
    });
  });
});

describe('hostile arguments', () => {
  it('a "__proto__" key stays an own property and pollutes nothing', () => {
    const args = JSON.parse('{"__proto__": {"polluted": true, "token": "t"}, "a": 1}');
    const out = redactArguments(args) as Record<string, unknown>;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true,"token":"[REDACTED]"},"a":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('nesting past 64 levels is cut, not walked', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(redactArguments(deep))).toContain('[TRUNCATED: nested too deep]');
  });
});

describe('stored argument JSON', () => {
  it('is the redacted arguments as JSON', () => {
    expect(auditArgumentsJson({ q: 'x', password: 'hunter2' })).toBe('{"q":"x","password":"[REDACTED]"}');
  });

  it('keeps the start of a long string and says how much was left out', () => {
    const json = auditArgumentsJson({ blob: 'é"\\'.repeat(20_000), token: 'secret-value' });
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(MAX_AUDIT_ARGUMENT_BYTES);
    const parsed = JSON.parse(json);
    expect(parsed.token).toBe('[REDACTED]');
    expect(parsed.blob.startsWith('é"\\é')).toBe(true);
    expect(parsed.blob).toMatch(/…\[\d+ more characters\]$/);
    // The first 1,024 characters are kept; the marker counts the rest.
    expect(parsed.blob.slice(0, MAX_AUDIT_STRING_CHARS)).toBe('é"\\'.repeat(20_000).slice(0, MAX_AUDIT_STRING_CHARS));
    expect(parsed.blob.slice(MAX_AUDIT_STRING_CHARS)).toBe(`…[${60_000 - MAX_AUDIT_STRING_CHARS} more characters]`);
  });

  it('keeps a string of exactly 1,024 characters whole', () => {
    const text = 'x'.repeat(MAX_AUDIT_STRING_CHARS);
    expect(JSON.parse(auditArgumentsJson({ text })).text).toBe(text);
  });

  it('over 16 KiB in all becomes a truncation marker that is still valid JSON and within the cap', () => {
    const json = auditArgumentsJson({ items: Array.from({ length: 100 }, (_, i) => `item ${i} `.repeat(50)), token: 'secret-value' });
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(MAX_AUDIT_ARGUMENT_BYTES);
    const parsed = JSON.parse(json);
    expect(parsed).toMatchObject({ $truncated: true, bytes: expect.any(Number) });
    expect(parsed.bytes).toBeGreaterThan(MAX_AUDIT_ARGUMENT_BYTES);
    expect(parsed.preview.startsWith('{"items":["item 0')).toBe(true);
    expect(json).not.toContain('secret-value');
  });

  it('returns arguments with nothing to redact untouched (no copy)', () => {
    const args = { a: { b: [1, 'two'] } };
    expect(redactArguments(args)).toBe(args);
  });

  it('values JSON cannot hold become a marker instead of an exception', () => {
    expect(auditArgumentsJson({ n: 1n })).toBe('"[UNSERIALIZABLE]"');
  });
});
