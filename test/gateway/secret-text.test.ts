import { describe, expect, it } from 'vitest';
import { toToolResult } from '../../src/gateway/openapi/response.js';
import { clientSafe } from '../../src/gateway/relay-call.js';

// What an upstream's error quotes reaches the client through clientSafe: the secrets it
// recognises are cut, the label kept so the message still reads, and ordinary words stay.

describe('secrets an upstream quotes in its errors', () => {
  it.each([
    ['connect failed: password=hunter2&user=app', 'hunter2', 'password=…&user=app'],
    ['config {"api_key": "k-123456", "region": "eu"}', 'k-123456', '"api_key": "…"'],
    ["bad client_secret='s3cr3t value' given", 's3cr3t', "client_secret='…'"],
    ['refresh_token: 1//0gAbCdEf rejected', '0gAbCdEf', 'refresh_token: …'],
    ['sent Authorization: Bearer eyJhbGciOi.abcdefgh.ijklmnop', 'abcdefgh', 'Bearer …'],
    ['header Basic YWxhZGRpbjpvcGVuc2VzYW1l refused', 'YWxhZGRpbjpvcGVuc2VzYW1l', 'Basic …'],
    ['a JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl leaked', 'eyJzdWIi', 'a JWT … leaked'],
    ['key ghp_abcdefghijklmnopqrstuvwxyz0123456789 expired', 'ghp_', 'key … expired'],
    ['using sk-proj-abcdefghijklmnopqrstuvwx', 'abcdefghijklmnop', 'using …'],
    ['slack xoxb-123456789012-abcdefghij failed', 'xoxb-', 'slack … failed'],
    ['aws AKIAIOSFODNN7EXAMPLE denied', 'AKIAIOSFODNN7EXAMPLE', 'aws … denied'],
    ['db postgres://admin:p@ss@db.internal:5432/prod down', 'p@ss', 'postgres://…@db.internal:5432'],
  ])('%s', (said, secret, kept) => {
    const safe = clientSafe(said);
    expect(safe).not.toContain(secret);
    expect(safe).toContain(kept);
  });

  it('leaves text that only names a secret as it is', () => {
    const said = 'the token was rejected: the password policy needs 12 characters; see the api key docs';
    expect(clientSafe(said)).toBe(said);
  });
});

describe('an OpenAPI error body that quotes a secret', () => {
  it('reaches the model without it; the status and the rest of the reason stay', () => {
    const body = Buffer.from('{"error":"invalid api_key=live-key-0123456789 for tenant acme"}');
    const result = toToolResult(
      { status: 401, statusText: 'Unauthorized', headers: {}, body, truncated: false },
      { operation: 'GET /pets', maxBytes: 1 << 20 },
    );
    const said = (result.content[0] as { text: string }).text;
    expect(result.isError).toBe(true);
    expect(said).not.toContain('live-key-0123456789');
    expect(said).toContain('HTTP 401 Unauthorized from GET /pets: {"error":"invalid api_key=… for tenant acme"}');
  });
});
