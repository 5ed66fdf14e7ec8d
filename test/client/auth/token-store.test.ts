import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfigDir, FileTokenStore, type StoredTokens } from '../../../src/client.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwright-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tokens = (over: Partial<StoredTokens> = {}): StoredTokens => ({
  server: 'https://mcp.example.com/mcp',
  resource: 'https://mcp.example.com/mcp',
  issuer: 'https://as.example.com',
  clientId: 'c1',
  accessToken: 'at-1',
  refreshToken: 'rt-1',
  ...over,
});

describe('FileTokenStore', () => {
  it('writes files only the user can read, in directories only the user can enter', async () => {
    const store = new FileTokenStore(join(dir, 'oauth'));
    await store.saveTokens(tokens());
    await store.saveClient('https://as.example.com', { clientId: 'c1', clientSecret: 's', kind: 'dynamic' });
    const file = store.serverFile('https://mcp.example.com/mcp');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'oauth'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'oauth', 'servers'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'oauth', 'clients'))).mode & 0o777).toBe(0o700);
    expect(await store.loadTokens('https://mcp.example.com/mcp')).toEqual(tokens());
    expect(await store.loadClient('https://as.example.com')).toEqual({ clientId: 'c1', clientSecret: 's', kind: 'dynamic' });
  });

  it('keeps tokens per server and per authorization server, the last one used by default', async () => {
    const store = new FileTokenStore(join(dir, 'oauth'));
    await store.saveTokens(tokens());
    await store.saveTokens(tokens({ issuer: 'https://as2.example.com', accessToken: 'at-2' }));
    await store.saveTokens(tokens({ server: 'https://other.example.com/mcp', accessToken: 'at-3' }));
    expect((await store.loadTokens('https://mcp.example.com/mcp'))?.accessToken).toBe('at-2');
    expect((await store.loadTokens('https://mcp.example.com/mcp', 'https://as.example.com'))?.accessToken).toBe('at-1');
    expect((await store.loadTokens('https://other.example.com/mcp'))?.accessToken).toBe('at-3');
    expect(await store.deleteTokens('https://mcp.example.com/mcp')).toBe(true);
    expect(await store.loadTokens('https://mcp.example.com/mcp')).toBeUndefined();
    expect(await store.deleteTokens('https://mcp.example.com/mcp')).toBe(false);
    expect((await store.loadTokens('https://other.example.com/mcp'))?.accessToken).toBe('at-3');
  });

  it('takes a file others could read back to mode 0600', async () => {
    const store = new FileTokenStore(join(dir, 'oauth'));
    await store.saveTokens(tokens());
    const file = store.serverFile('https://mcp.example.com/mcp');
    await chmod(file, 0o644);
    expect(await store.loadTokens('https://mcp.example.com/mcp')).toBeDefined();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('does not read through a symbolic link, and reads a damaged file as absent', async () => {
    const store = new FileTokenStore(join(dir, 'oauth'));
    const file = store.serverFile('https://mcp.example.com/mcp');
    await mkdir(join(file, '..'), { recursive: true });
    const elsewhere = join(dir, 'elsewhere.json');
    await writeFile(elsewhere, JSON.stringify({ server: 'https://mcp.example.com/mcp', lastIssuer: 'x', byIssuer: { x: tokens({ issuer: 'x' }) } }));
    await symlink(elsewhere, file);
    expect(await store.loadTokens('https://mcp.example.com/mcp')).toBeUndefined();
    await rm(file);
    await writeFile(file, '{ not json');
    expect(await store.loadTokens('https://mcp.example.com/mcp')).toBeUndefined();
    // Saving replaces the damaged file whole.
    await store.saveTokens(tokens());
    expect(JSON.parse(await readFile(file, 'utf8')).server).toBe('https://mcp.example.com/mcp');
  });

  it('lives under $XDG_CONFIG_HOME/toolwright, else ~/.config/toolwright', () => {
    expect(defaultConfigDir({ XDG_CONFIG_HOME: '/x/cfg' })).toBe('/x/cfg/toolwright');
    expect(defaultConfigDir({ XDG_CONFIG_HOME: 'relative' })).toMatch(/\.config\/toolwright$/);
    expect(defaultConfigDir({})).toMatch(/\.config\/toolwright$/);
  });
});
