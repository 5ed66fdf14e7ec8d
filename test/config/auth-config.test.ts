import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticationConfigured, buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { hashApiKey } from '../../src/policy/auth/api-keys.js';
import { serveHttp } from '../../src/transports/http-server.js';
import { refusedConfigProblems } from '../helpers/config.js';
import { tempDir } from '../helpers/temp.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { MODERN, modernMeta } from '../helpers/wire.js';

const problems = refusedConfigProblems;
const load = (yaml: string) => {
  const file = join(tempDir('toolwright-auth-config-'), 'toolwright.config.yaml');
  writeFileSync(file, yaml);
  return loadConfig(file);
};

describe('server.auth in the config file', () => {
  it('names each bad key', () => {
    const yaml = [
      'server:',
      '  auth:',
      '    issuer: not-a-url',
      '    algorithms: [RS256, HS256]',
      '    apiKeys:',
      '      - { hash: "plain-text-key", principal: ci }',
      '    toolScopes: { read_file: ["has space"] }',
      '    introspection: { clientId: rs }',
      '    audiance: x',
    ].join('\n');
    const found = problems(() => load(yaml));
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config\.server\.auth\.issuer: must match pattern/),
        expect.stringMatching(/^config\.server\.auth\.algorithms\[1\]: expected one of "RS256"/),
        expect.stringMatching(/^config\.server\.auth\.apiKeys\[0\]\.hash: must match pattern/),
        expect.stringMatching(/^config\.server\.auth\.toolScopes\.read_file\[0\]: must match pattern/),
        expect.stringMatching(/^config\.server\.auth\.introspection\.clientSecret: required field is missing/),
        'config.server.auth.audiance: unexpected field (not allowed by the schema); did you mean "audience"?',
      ]),
    );
  });

  it('counts as authentication for binding a non-loopback address', () => {
    const { config, baseDir, file } = load(`server:\n  audit: false\n  auth:\n    apiKeys: [{ hash: "${hashApiKey('k'.repeat(32))}", principal: ci }]\n`);
    const plan = buildServer(config, baseDir, '0.0.0', file);
    expect(authenticationConfigured(plan)).toBe(true);
    plan.server.close();
  });

  it('asks for at least one mode', () => {
    expect(problems(() => load('server:\n  auth: { scopesSupported: [a] }\n')).join('\n')).toMatch(/config\.server\.auth\.issuer: required field is missing/);
  });

  it('stops start-up on what only the code can check, naming the key', () => {
    const { config, baseDir, file } = load(
      'server:\n  auth:\n    introspection: { endpoint: "https://as.example/introspect", clientId: rs, clientSecretEnv: TOOLWRIGHT_TEST_UNSET_SECRET }\n',
    );
    expect(problems(() => buildServer(config, baseDir, '0.0.0', file))).toEqual([
      'server.auth.introspection needs clientSecret or clientSecretEnv (environment variable TOOLWRIGHT_TEST_UNSET_SECRET is not set)',
    ]);
  });
});

describe('a server built from the config', () => {
  let as: LocalAuthorizationServer;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(() => as?.close());

  it('serves OAuth with per-tool scopes, and API keys, as configured', async () => {
    const key = 'twk_config-test-key-0123456789abcdefghij';
    const { config, baseDir, file } = load(
      [
        'toolsets: { math: {}, time: {} }',
        'server:',
        '  audit: false',
        '  auth:',
        `    issuer: "${as.issuer}"`,
        '    scopesSupported: [tools:read]',
        '    defaultScopes: { readOnly: [tools:read], other: [tools:write] }',
        '    toolScopes: { get_current_time: [reports] }',
        '    apiKeys:',
        `      - { hash: "${hashApiKey(key)}", principal: ci-bot, scopes: [reports] }`,
      ].join('\n'),
    );
    const plan = buildServer(config, baseDir, '0.0.0', file);
    const handle = await serveHttp(plan.server, { ...plan.http, port: 0 });
    try {
      const list = async (authorization: string) => {
        const res = await fetch(handle.url, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
          }),
        });
        const session = res.headers.get('mcp-session-id')!;
        const listed = await fetch(handle.url, {
          method: 'POST',
          headers: {
            authorization,
            'content-type': 'application/json',
            accept: 'application/json',
            'mcp-session-id': session,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
        return ((await listed.json()).result.tools as Array<{ name: string }>).map((t) => t.name);
      };
      const { access_token } = await as.token({ resource: handle.url, scope: 'tools:read' });
      const oauth = await list(`Bearer ${access_token}`);
      expect(oauth.length).toBeGreaterThan(0);
      expect(oauth).not.toContain('get_current_time');
      expect(await list(`Bearer ${key}`)).toEqual(['get_current_time']);
      const metadata = await (await fetch(`${new URL(handle.url).origin}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(metadata).toMatchObject({ resource: handle.url, authorization_servers: [as.issuer], scopes_supported: ['tools:read'] });
    } finally {
      await handle.close();
      plan.server.close();
    }
  });
});

describe("an API key's hash from the environment", () => {
  it('expands ${NAME} in apiKeys[].hash, so one config serves every deployment with its own key', async () => {
    const key = 'twk_'.padEnd(40, 'e');
    vi.stubEnv('TOOLWRIGHT_TEST_KEY_HASH', hashApiKey(key));
    try {
      const { config, baseDir, file } = load(
        'toolsets: { math: {} }\nserver:\n  audit: false\n  auth:\n    apiKeys: [{ hash: "${TOOLWRIGHT_TEST_KEY_HASH}", principal: ci }]\n',
      );
      const plan = buildServer(config, baseDir, '0.0.0', file);
      const handle = await serveHttp(plan.server, { ...plan.http, port: 0 });
      try {
        const call = (authorization: string) =>
          fetch(handle.url, {
            method: 'POST',
            headers: {
              authorization,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': MODERN,
              'mcp-method': 'tools/list',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }),
          });
        expect((await call(`Bearer ${key}`)).status).toBe(200);
        expect((await call(`Bearer ${'twk_'.padEnd(40, 'x')}`)).status).toBe(401);
      } finally {
        await handle.close();
        plan.server.close();
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses an unset variable or a value that is not a hash, naming the key and never the value', () => {
    const yaml = 'server:\n  auth:\n    apiKeys: [{ hash: "${TOOLWRIGHT_TEST_KEY_HASH}", principal: ci }]\n';
    const { config, baseDir, file } = load(yaml);
    expect(problems(() => buildServer(config, baseDir, '0.0.0', file))).toEqual([
      'server.auth.apiKeys[0].hash: ${TOOLWRIGHT_TEST_KEY_HASH} is not set in the environment',
    ]);
    vi.stubEnv('TOOLWRIGHT_TEST_KEY_HASH', 'twk_the-key-itself-not-its-hash');
    try {
      const found = problems(() => buildServer(config, baseDir, '0.0.0', file)).join('\n');
      expect(found).toMatch(/server\.auth\.apiKeys\[0\]\.hash must be "sha256:"/);
      expect(found).not.toContain('twk_the-key-itself');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(problems(() => load('server:\n  auth:\n    apiKeys: [{ hash: "sha256:${X}", principal: ci }]\n')).join('\n')).toMatch(
      /apiKeys\[0\]\.hash: must match pattern/,
    );
  });
});

describe('tenants in the config file', () => {
  it("takes server.auth.tenantClaim and an API key entry's tenant, and names a bad one", async () => {
    const key = 'twk_'.padEnd(40, 'k');
    const { config, baseDir, file } = load(
      [
        'server:',
        '  audit: false',
        '  auth:',
        '    tenantClaim: org',
        '    apiKeys:',
        `      - { hash: "${hashApiKey(key)}", principal: ci-bot, tenant: acme }`,
      ].join('\n'),
    );
    const plan = buildServer(config, baseDir, '0.0.0', file);
    plan.server.tools.add({
      name: 'whoami',
      description: 'd',
      inputSchema: { type: 'object' },
      handler: (_args: unknown, ctx: { caller: unknown }) => JSON.stringify(ctx.caller),
    });
    const handle = await serveHttp(plan.server, { ...plan.http, port: 0 });
    try {
      const res = await fetch(handle.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'whoami',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta() } }),
      });
      const { result } = await res.json();
      expect(JSON.parse(result.content[0].text)).toMatchObject({ id: 'ci-bot', tenant: 'acme', method: 'api-key' });
    } finally {
      await handle.close();
      plan.server.close();
    }
    expect(problems(() => load('server:\n  auth:\n    tenantClaim: ""\n    apiKeys: [{ hash: "x", principal: a, tenant: "" }]\n')).join('\n')).toMatch(
      /tenantClaim/,
    );
  });
});
