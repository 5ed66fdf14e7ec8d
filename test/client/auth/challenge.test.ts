import { describe, expect, it } from 'vitest';
import { authorizationServerWellKnown, protectedResourceWellKnown, resourceCovers, secureUrl } from '../../../src/client/auth/urls.js';
import { parseBearerChallenge, scopeSet } from '../../../src/client/auth/www-authenticate.js';

describe('parseBearerChallenge (RFC 6750 §3, RFC 9449 §7.1, RFC 7235 §4.1)', () => {
  it('reads quoted and token values, in any case, among other challenges', () => {
    const header =
      'Basic realm="x", BEARER Error=insufficient_scope, scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \\"write\\""';
    expect(parseBearerChallenge(header)).toEqual({
      scheme: 'Bearer',
      error: 'insufficient_scope',
      scope: 'files:read files:write',
      resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource',
      errorDescription: 'needs "write"',
    });
  });

  it('takes the first Bearer or DPoP challenge and the first of a repeated parameter, nothing from other schemes', () => {
    expect(parseBearerChallenge('Basic realm="r", Bearer scope="b", scope="c"')).toEqual({ scheme: 'Bearer', scope: 'b' });
    expect(parseBearerChallenge('DPoP error="use_dpop_nonce", Bearer scope="b"')).toEqual({ scheme: 'DPoP', error: 'use_dpop_nonce' });
    expect(parseBearerChallenge('Basic realm="r"')).toBeUndefined();
    expect(parseBearerChallenge(null)).toBeUndefined();
  });

  it('survives hostile input quickly: unterminated quotes, stray characters, huge headers', () => {
    expect(parseBearerChallenge('Bearer scope="unterminated')).toEqual({ scheme: 'Bearer', scope: 'unterminated' });
    expect(parseBearerChallenge('Bearer ===,,,"\'x')).toEqual({ scheme: 'Bearer' });
    expect(parseBearerChallenge(`Bearer scope="${'a'.repeat(10_000)}"`)).toBeUndefined();
    const prototype = parseBearerChallenge('Bearer __proto__="x", constructor="y"');
    expect(Object.getPrototypeOf(prototype)).toBe(Object.prototype);
  });

  it('unions scopes in first-seen order', () => {
    expect(scopeSet('a b', undefined, 'b  c', '')).toEqual(['a', 'b', 'c']);
  });
});

describe('resource and endpoint URLs', () => {
  const server = new URL('https://mcp.example.com/api/mcp');

  it('a resource covers the server when it is the same origin and a whole-segment prefix of its path', () => {
    expect(resourceCovers(new URL('https://mcp.example.com/api/mcp'), server)).toBe(true);
    expect(resourceCovers(new URL('https://mcp.example.com/api'), server)).toBe(true);
    expect(resourceCovers(new URL('https://mcp.example.com'), server)).toBe(true);
    expect(resourceCovers(new URL('https://mcp.example.com/ap'), server)).toBe(false);
    expect(resourceCovers(new URL('https://mcp.example.com/api/mcp/more'), server)).toBe(false);
    expect(resourceCovers(new URL('https://mcp.example.com:8443/api/mcp'), server)).toBe(false);
    expect(resourceCovers(new URL('http://mcp.example.com/api/mcp'), server)).toBe(false);
    expect(resourceCovers(new URL('https://evil.example.com/api/mcp'), server)).toBe(false);
  });

  it('builds the well-known URIs in the spec order', () => {
    expect(protectedResourceWellKnown(server).map(String)).toEqual([
      'https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp',
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    ]);
    expect(authorizationServerWellKnown(new URL('https://auth.example.com/tenant1')).map(String)).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
    expect(authorizationServerWellKnown(new URL('https://auth.example.com')).map(String)).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
  });

  it('allows plain http only to this machine', () => {
    expect(secureUrl('http://127.0.0.1:8080/token', 't').port).toBe('8080');
    expect(secureUrl('http://localhost/token', 't').hostname).toBe('localhost');
    expect(secureUrl('http://[::1]:9/x', 't').hostname).toBe('[::1]');
    expect(() => secureUrl('http://auth.example.com/token', 't')).toThrow(/must use https/);
    expect(() => secureUrl('https://user:pw@auth.example.com/token', 't')).toThrow(/credentials/);
    expect(() => secureUrl('javascript:alert(1)', 't')).toThrow(/must use https/);
  });
});
