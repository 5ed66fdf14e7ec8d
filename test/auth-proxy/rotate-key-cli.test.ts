/**
 * `toolwright auth rotate-key --config …` (the built CLI, as a child process): a new signing key
 * in the store the config's server uses, which a facade already running on that store signs with
 * from its next token on while still publishing the previous key; a config without a facade, or
 * without the encryption key's variable, is a usage error naming what is missing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthProxy, type AuthProxy } from '../../src/auth-proxy/facade.js';
import { SqliteAuthProxyStore } from '../../src/auth-proxy/sqlite-store.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { ENCRYPTION_KEY } from './helpers/facade-server.js';

const RESOURCE = 'http://127.0.0.1:3000/mcp';
const PROXY = { provider: 'oidc' as const, issuer: 'https://login.example.com', clientId: 'tw', clientSecret: 'x', encryptionKey: '${TW_TEST_PROXY_KEY}' };

let dir: string;
let running: AuthProxy;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tw-rotate-key-'));
  await writeFile(join(dir, 'toolwright.config.json'), JSON.stringify({ server: { audit: false, auth: { resource: RESOURCE, proxy: PROXY } } }));
  await writeFile(join(dir, 'plain.config.json'), JSON.stringify({ server: { audit: false } }));
  // A server already running on the store the config names (auth-proxy.db in its state folder).
  running = createAuthProxy({ ...PROXY, encryptionKey: ENCRYPTION_KEY, store: new SqliteAuthProxyStore(join(dir, '.toolwright', 'auth-proxy.db')) }, RESOURCE);
});
afterAll(async () => {
  await running?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string | undefined> = { TW_TEST_PROXY_KEY: ENCRYPTION_KEY }) {
  const run = startBuiltCli(['auth', 'rotate-key', ...args], { cwd: dir, env });
  const { code } = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

const kids = async () => (await running.resourceServer().jwks!()).keys.map((k) => (k as { kid: string }).kid);

describe('toolwright auth rotate-key', () => {
  it('makes a new signing key in the server’s store: a running facade publishes it beside the previous one', async () => {
    const [before] = await kids();
    const first = await cli(['--config', 'toolwright.config.json']);
    expect(first).toMatchObject({ code: 0 });
    const kid = /^new signing key: (\S+)$/m.exec(first.stdout)?.[1];
    expect(kid).toBeTruthy();
    expect(first.stderr).toMatch(/previous key stays published/);
    expect(await kids()).toEqual([before, kid]);
    // Run again: each run is one more rotation.
    const second = /^new signing key: (\S+)$/m.exec((await cli(['--config', 'toolwright.config.json'])).stdout)?.[1];
    expect(await kids()).toEqual([before, kid, second]);
  });

  it('refuses a config without a facade, and one whose encryptionKey variable is not set, naming what is missing', async () => {
    const plain = await cli(['--config', 'plain.config.json']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/has no server\.auth\.proxy/);
    const unset = await cli(['--config', 'toolwright.config.json'], { TW_TEST_PROXY_KEY: undefined });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toMatch(/server\.auth\.proxy\.encryptionKey/);
    expect(unset.stderr).not.toContain(ENCRYPTION_KEY);
  });
});
