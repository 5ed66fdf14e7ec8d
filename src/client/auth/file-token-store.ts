import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pickTokens, withTokens, type ServerRecord } from './token-store.js';
import type { ClientRegistration, StoredTokens, TokenStore } from './types.js';

// Node only (files, the home directory): exported by `toolwright/client`, not by its runtime-neutral core.

/** Where toolwright keeps the user's own files: $XDG_CONFIG_HOME/toolwright, else ~/.config/toolwright. */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg?.startsWith('/') ? xdg : join(homedir(), '.config'), 'toolwright');
}

/**
 * Tokens and dynamic registrations in files only the user can read (mode
 * 0600, in directories of mode 0700), one file per server and one per
 * authorization server (security-considerations.mdx "Token Theft": secure
 * storage). Files are replaced whole (write, then rename), never followed
 * through a symbolic link, and a damaged one reads as absent.
 */
export class FileTokenStore implements TokenStore {
  constructor(readonly directory: string = join(defaultConfigDir(), 'oauth')) {}

  async loadTokens(server: string, issuer?: string): Promise<StoredTokens | undefined> {
    const record = await this.read<ServerRecord>(this.serverFile(server));
    return record?.server === server ? pickTokens(record, issuer) : undefined;
  }

  async saveTokens(tokens: StoredTokens): Promise<void> {
    const file = this.serverFile(tokens.server);
    const record = await this.read<ServerRecord>(file);
    await this.write(file, withTokens(record?.server === tokens.server ? record : undefined, tokens));
  }

  async deleteTokens(server: string): Promise<boolean> {
    const file = this.serverFile(server);
    const existed = (await this.read<ServerRecord>(file)) !== undefined;
    await rm(file, { force: true });
    return existed;
  }

  async loadClient(issuer: string): Promise<ClientRegistration | undefined> {
    const record = await this.read<{ issuer: string; client: ClientRegistration }>(this.clientFile(issuer));
    return record?.issuer === issuer && typeof record.client?.clientId === 'string' ? record.client : undefined;
  }

  async saveClient(issuer: string, client: ClientRegistration): Promise<void> {
    await this.write(this.clientFile(issuer), { issuer, client });
  }

  /** The file holding a server's tokens. */
  serverFile(server: string): string {
    return join(this.directory, 'servers', `${digest(server)}.json`);
  }

  private clientFile(issuer: string): string {
    return join(this.directory, 'clients', `${digest(issuer)}.json`);
  }

  private async read<T>(file: string): Promise<T | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch {
      return undefined;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > 1024 * 1024) return undefined;
      // Left readable by others (copied, restored from a backup): only the user may read it from now on.
      if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) await handle.chmod(0o600);
      const parsed: unknown = JSON.parse(await handle.readFile('utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as T) : undefined;
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }

  private async write(file: string, value: unknown): Promise<void> {
    const dir = join(file, '..');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32') {
      await chmod(this.directory, 0o700);
      await chmod(dir, 0o700);
    }
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(JSON.stringify(value, null, 2));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, file);
    } catch (err) {
      await unlink(temp).catch(() => {});
      throw err;
    }
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}
