/**
 * `server.auth.proxy` in a config: the schema takes it (and refuses unknown keys), a mistake
 * stops start-up naming the key, and `toolwright serve` prints the redirect URI to register at
 * the provider.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { serveHttp } from '../../src/transports/http-server.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { freePort } from '../helpers/free-port.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwright-proxy-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const proxy = { provider: 'oidc', issuer: 'https://login.example.com', clientId: 'tw', clientSecret: 'x', encryptionKey: '0123456789abcdef0123456789abcdef' };

async function configFile(server: Record<string, unknown>): Promise<string> {
  const file = join(dir, `toolwright.config.${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ server: { audit: false, ...server } }));
  return file;
}

describe('server.auth.proxy in a config', () => {
  it('is valid config; an unknown key in it is named', async () => {
    const ok = loadConfig(await configFile({ auth: { resource: 'http://127.0.0.1:3000/mcp', proxy } }));
    expect(ok.config.server?.auth?.proxy?.provider).toBe('oidc');
    const rotating = loadConfig(await configFile({ auth: { resource: 'http://127.0.0.1:3000/mcp', proxy: { ...proxy, signingKeyMaxAgeDays: 30 } } }));
    expect(rotating.config.server?.auth?.proxy?.signingKeyMaxAgeDays).toBe(30);
    const typo = await configFile({ auth: { resource: 'http://127.0.0.1:3000/mcp', proxy: { ...proxy, clientSecet: 'typo' } } });
    expect(() => loadConfig(typo)).toThrow(/clientSecet.*did you mean "clientSecret"/);
  });

  it('needs auth.resource (the public URL), refuses its own issuer beside it, and names an unset ${VAR}', () => {
    expect(() => buildServer({ server: { audit: false, auth: { proxy } as never } }, dir, '0')).toThrow(/server\.auth\.proxy needs server\.auth\.resource/);
    expect(() =>
      buildServer({ server: { audit: false, auth: { resource: 'http://127.0.0.1:3000/mcp', issuer: 'https://other.example', proxy } as never } }, dir, '0'),
    ).toThrow(/issues its own tokens/);
    expect(() =>
      buildServer(
        { server: { audit: false, auth: { resource: 'http://127.0.0.1:3000/mcp', proxy: { ...proxy, clientSecret: '${TW_UNSET_PROXY_SECRET}' } } as never } },
        dir,
        '0',
      ),
    ).toThrow(/server\.auth\.proxy\.clientSecret: \$\{TW_UNSET_PROXY_SECRET\} is not set/);
    expect(() =>
      buildServer(
        { server: { audit: false, auth: { resource: 'http://127.0.0.1:3000/mcp', proxy: { ...proxy, encryptionKey: 'short' } } as never } },
        dir,
        '0',
      ),
    ).toThrow(/encryptionKey must be at least 32 characters/);
    expect(() =>
      buildServer(
        { server: { audit: false, auth: { resource: 'http://127.0.0.1:3000/mcp', proxy: { ...proxy, signingKeyMaxAgeDays: 0 } } as never } },
        dir,
        '0',
      ),
    ).toThrow(/server\.auth\.proxy\.signingKeyMaxAgeDays must be a positive number of days/);
    expect(() =>
      buildServer(
        { server: { audit: false, auth: { resource: 'https://mcp.example.com/mcp', proxy: { ...proxy, provider: 'entra', issuer: undefined } } as never } },
        dir,
        '0',
      ),
    ).toThrow(/auth\.proxy\.tenant is required for provider entra/);
  });

  it('toolwright serve prints the redirect URI to register at the provider', async () => {
    const port = await freePort();
    const file = await configFile({ auth: { resource: `http://127.0.0.1:${port}/mcp`, proxy: { ...proxy, store: 'proxy.db' } } });
    const serve = startBuiltCli(['serve', '--http', '--port', String(port), '--config', file], { env: { XDG_STATE_HOME: dir } });
    try {
      const [line] = await serve.waitForStderr(/redirect URI for toolwright is (\S+)/);
      expect(line).toContain(`http://127.0.0.1:${port}/oauth/callback`);
      const meta = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`);
      expect(((await meta.json()) as { issuer: string }).issuer).toBe(`http://127.0.0.1:${port}`);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  });

  it("writes the facade's events to the server's audit trail (here JSON lines), naming the instance", async () => {
    const trail = join(dir, `audit-${Math.random().toString(36).slice(2)}.jsonl`);
    const port = await freePort();
    const plan = buildServer(
      { server: { audit: { jsonl: trail, sqlite: false }, auth: { resource: `http://127.0.0.1:${port}/mcp`, proxy } as never } },
      dir,
      '0',
    );
    const http = await serveHttp(plan.server, { ...plan.http, port });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'From config', redirect_uris: ['http://127.0.0.1:5000/cb'] }),
      });
      expect(res.status).toBe(201);
    } finally {
      await http.close();
      await plan.authProxy?.close();
      await plan.server.close();
    }
    const lines = (await readFile(trail, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ method: 'oauth/register', status: 'ok', clientName: 'From config', instance: plan.server.instanceId })]);
  });

  it.each([
    ['refuse', 503],
    ['warn', 201],
  ] as const)('follows server.audit.onFailure %s: once the server has lost a record, /register answers %i', async (onFailure, status) => {
    const trail = join(dir, `audit-${Math.random().toString(36).slice(2)}.jsonl`);
    const port = await freePort();
    const plan = buildServer(
      { server: { audit: { jsonl: trail, sqlite: false, onFailure }, auth: { resource: `http://127.0.0.1:${port}/mcp`, proxy } as never } },
      dir,
      '0',
    );
    const http = await serveHttp(plan.server, { ...plan.http, port });
    try {
      // What a tool call whose record could not be written tells the server's guard.
      plan.server.auditGuard!.failed(new Error('disk full'), 'tools/call', 1);
      const res = await fetch(`http://127.0.0.1:${port}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:5000/cb'] }),
      });
      expect(res.status).toBe(status);
      if (status === 503) expect(((await res.json()) as { error: string }).error).toBe('temporarily_unavailable');
    } finally {
      await http.close();
      await plan.authProxy?.close();
      await plan.server.close();
    }
  });
});
