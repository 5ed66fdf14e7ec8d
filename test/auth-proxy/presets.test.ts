/**
 * Each preset names its provider's issuer (discovered at `<issuer>/.well-known/openid-configuration`,
 * whose `issuer` must match) or, for GitHub, its fixed OAuth endpoints; a missing key is named.
 * The discovery documents come from a local server that answers for any issuer the preset asks
 * about, so the test sees exactly which URL each preset reads.
 */
import { describe, expect, it } from 'vitest';
import type { AuthProxyOptions } from '../../src/auth-proxy/options.js';
import { providerOf } from '../../src/auth-proxy/providers.js';
import { authorizationUrl } from '../../src/auth-proxy/upstream.js';

const base = { clientId: 'tw', clientSecret: 's', encryptionKey: 'k'.repeat(32) };

/** Answers every discovery request with a document for the issuer it was asked about (or `claimed`). */
function discovery(asked: string[], claimed?: string): typeof fetch {
  return (async (input: string | URL) => {
    const url = String(input);
    asked.push(url);
    const issuer = url.replace(/\/\.well-known\/openid-configuration$/, '');
    const named = claimed ?? (url.startsWith('https://example.eu.auth0.com') ? `${issuer}/` : issuer);
    return Response.json({
      issuer: named,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post'],
      authorization_response_iss_parameter_supported: true,
    });
  }) as typeof fetch;
}

describe('provider presets', () => {
  it.each([
    [{ provider: 'google' }, 'https://accounts.google.com/.well-known/openid-configuration'],
    [
      { provider: 'entra', tenant: 'contoso.onmicrosoft.com' },
      'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration',
    ],
    [{ provider: 'auth0', domain: 'example.eu.auth0.com' }, 'https://example.eu.auth0.com/.well-known/openid-configuration'],
    [{ provider: 'okta', domain: 'example.okta.com' }, 'https://example.okta.com/oauth2/default/.well-known/openid-configuration'],
    [{ provider: 'keycloak', realmUrl: 'https://sso.example.com/realms/tools/' }, 'https://sso.example.com/realms/tools/.well-known/openid-configuration'],
    [{ provider: 'oidc', issuer: 'https://idp.example.com/tenant-a' }, 'https://idp.example.com/tenant-a/.well-known/openid-configuration'],
  ] as const)('%o discovers %s', async (preset, url) => {
    const asked: string[] = [];
    const provider = providerOf({ ...base, ...preset } as AuthProxyOptions, discovery(asked));
    const endpoints = await provider.endpoints();
    expect(asked).toEqual([url]);
    expect(endpoints).toMatchObject({ pkce: true, issParameter: true, tokenAuth: 'client_secret_post' });
    expect(provider.identity).toBe('id_token');
  });

  it('a discovery document naming another issuer is refused (and asked again next time)', async () => {
    const asked: string[] = [];
    const provider = providerOf({ ...base, provider: 'oidc', issuer: 'https://idp.example.com' }, discovery(asked, 'https://evil.example'));
    await expect(provider.endpoints()).rejects.toThrow(/names issuer "https:\/\/evil.example"/);
    await expect(provider.endpoints()).rejects.toThrow();
    expect(asked).toHaveLength(2);
  });

  it('a preset without its key is a TypeError naming the key', () => {
    expect(() => providerOf({ ...base, provider: 'entra' })).toThrow(/auth\.proxy\.tenant is required for provider entra/);
    expect(() => providerOf({ ...base, provider: 'auth0' })).toThrow(/auth\.proxy\.domain/);
    expect(() => providerOf({ ...base, provider: 'okta', domain: 'evil.example/path?x' })).toThrow(/must be a host name/);
    expect(() => providerOf({ ...base, provider: 'keycloak' })).toThrow(/auth\.proxy\.realmUrl/);
    expect(() => providerOf({ ...base, provider: 'oidc' })).toThrow(/auth\.proxy\.issuer/);
    expect(() => providerOf({ ...base, provider: 'nope' as never })).toThrow(/must be one of/);
  });

  it("GitHub: fixed OAuth endpoints (or GitHub Enterprise Server's), PKCE, identity from the user API", async () => {
    const github = providerOf({ ...base, provider: 'github' });
    expect(github.identity).toBe('github');
    expect(github.userEndpoint).toBe('https://api.github.com/user');
    expect(await github.endpoints()).toMatchObject({
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      pkce: true,
    });
    const ghes = providerOf({ ...base, provider: 'github', githubUrl: 'https://ghe.example.com/' });
    expect(ghes.userEndpoint).toBe('https://ghe.example.com/api/v3/user');
  });

  it('Google asks for offline access so a refresh token comes back', async () => {
    const google = providerOf({ ...base, provider: 'google' }, discovery([]));
    const url = new URL(
      authorizationUrl(google, await google.endpoints(), {
        clientId: 'tw',
        redirectUri: 'https://mcp.example.com/oauth/callback',
        scopes: ['openid'],
        state: 's',
        challenge: 'c',
        nonce: 'n',
      }),
    );
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ access_type: 'offline', prompt: 'consent', nonce: 'n', code_challenge_method: 'S256' });
  });
});
