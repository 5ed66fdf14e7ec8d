import type { ClientRegistration, StoredTokens, TokenStore } from './types.js';

/** Tokens for this process only: nothing is written anywhere. */
export class MemoryTokenStore implements TokenStore {
  private readonly servers = new Map<string, ServerRecord>();
  private readonly clients = new Map<string, ClientRegistration>();

  async loadTokens(server: string, issuer?: string): Promise<StoredTokens | undefined> {
    return pickTokens(this.servers.get(server), issuer);
  }

  async saveTokens(tokens: StoredTokens): Promise<void> {
    this.servers.set(tokens.server, withTokens(this.servers.get(tokens.server), tokens));
  }

  async deleteTokens(server: string): Promise<boolean> {
    return this.servers.delete(server);
  }

  async loadClient(issuer: string): Promise<ClientRegistration | undefined> {
    return this.clients.get(issuer);
  }

  async saveClient(issuer: string, client: ClientRegistration): Promise<void> {
    this.clients.set(issuer, client);
  }
}

export interface ServerRecord {
  server: string;
  /** The authorization server whose tokens were saved last: the one to use when none is named. */
  lastIssuer: string;
  byIssuer: Record<string, StoredTokens>;
}

export function pickTokens(record: ServerRecord | undefined, issuer: string | undefined): StoredTokens | undefined {
  if (!record || typeof record.byIssuer !== 'object' || record.byIssuer === null) return undefined;
  const key = issuer ?? record.lastIssuer;
  const tokens = Object.hasOwn(record.byIssuer, key) ? record.byIssuer[key] : undefined;
  return tokens && typeof tokens.accessToken === 'string' && tokens.issuer === key && tokens.server === record.server ? tokens : undefined;
}

export function withTokens(record: ServerRecord | undefined, tokens: StoredTokens): ServerRecord {
  const byIssuer: Record<string, StoredTokens> = Object.create(null) as Record<string, StoredTokens>;
  if (record) for (const [issuer, saved] of Object.entries(record.byIssuer ?? {})) byIssuer[issuer] = saved;
  byIssuer[tokens.issuer] = tokens;
  return { server: tokens.server, lastIssuer: tokens.issuer, byIssuer: { ...byIssuer } };
}
