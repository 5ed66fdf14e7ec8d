import { hashOf, randomToken, type Sealer } from './secrets.js';
import type { AuthProxyStore } from './store.js';
import type { UpstreamTokens } from './upstream.js';

/** One sign-in of one user for one client: what toolwright's tokens stand for, with the provider's tokens sealed inside. */
export interface Grant {
  id: string;
  clientId: string;
  subject: string;
  /** The provider's name for the user (login, email), for the consent and the logs of the operator only. */
  name?: string;
  /** toolwright scopes granted. */
  scopes: string[];
  /** The provider's tokens, AES-GCM sealed with the grant id as associated data. */
  upstream: string;
  /** SHA-256 of the refresh token now valid (rotation: one at a time). */
  refreshHash?: string;
}

/** What an authorization code stands for until it is redeemed (once). */
export interface CodeRecord {
  grantId: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string;
  scopes: string[];
}

/** OAuth 2.1 §4.1.2: codes are short-lived; a minute is more than a client needs. */
export const CODE_TTL_MS = 60_000;
/** A replayed code or refresh token is recognized this long after its use, and its grant ended. */
const USED_MEMORY_MS = 24 * 3600_000;

/**
 * Grants and the secrets pointing at them. Secrets (codes, refresh tokens) are stored by their
 * SHA-256 only; a secret is taken (read and deleted at once) when used, so a second use finds
 * nothing but the note that it was used, which ends the grant (RFC 6749 §4.1.2 for codes,
 * OAuth 2.1 §4.3.1 / the security BCP §4.14.2 for refresh tokens).
 */
export class Grants {
  constructor(
    private readonly store: AuthProxyStore,
    private readonly sealer: Sealer,
    private readonly grantTtlMs: number,
  ) {}

  async create(fields: Omit<Grant, 'id' | 'upstream'>, tokens: UpstreamTokens): Promise<Grant> {
    const id = randomToken();
    const grant: Grant = { ...fields, id, upstream: this.sealer.seal(JSON.stringify(tokens), `grant:${id}`) };
    await this.save(grant);
    return grant;
  }

  async get(id: string): Promise<Grant | undefined> {
    const [text, ended] = await Promise.all([this.store.get(`grant:${id}`), this.store.get(`ended:${id}`)]);
    return text && ended === undefined ? (JSON.parse(text) as Grant) : undefined;
  }

  /**
   * Whether the grant `id` still stands: its record is there and it was not ended. Asked by the
   * resource server for every request with one of toolwright's tokens (what makes a revocation
   * cut the access tokens already out); synchronous for a store in this process, one round
   * trip (two pipelined GETs) for Redis, and no cache, so a revocation on another instance
   * holds at once. A grant the store lost is not live either (fail closed).
   */
  isLive(id: string): boolean | Promise<boolean> {
    const { store } = this;
    if (store.getNow) return store.getNow(`grant:${id}`) !== undefined && store.getNow(`ended:${id}`) === undefined;
    return Promise.all([store.get(`grant:${id}`), store.get(`ended:${id}`)]).then(([grant, ended]) => grant !== undefined && ended === undefined);
  }

  async save(grant: Grant): Promise<void> {
    await this.store.put(`grant:${grant.id}`, JSON.stringify(grant), this.grantTtlMs);
    // A refresh racing the grant's end must not bring it back: end() notes the end before it
    // deletes, so either that note is seen here or the delete comes after this write.
    if ((await this.store.get(`ended:${grant.id}`)) !== undefined) await this.store.delete(`grant:${grant.id}`);
  }

  upstreamOf(grant: Grant): UpstreamTokens {
    return JSON.parse(this.sealer.open(grant.upstream, `grant:${grant.id}`)) as UpstreamTokens;
  }

  withUpstream(grant: Grant, tokens: UpstreamTokens): Grant {
    return { ...grant, upstream: this.sealer.seal(JSON.stringify(tokens), `grant:${grant.id}`) };
  }

  /**
   * Ends a grant: notes the end (kept as long as a grant could live, so nothing issued under it
   * is accepted again), then deletes its refresh token and the grant. Access tokens already out
   * are refused from then on (isLive).
   */
  async end(grant: Grant): Promise<void> {
    await this.store.put(`ended:${grant.id}`, '1', this.grantTtlMs);
    if (grant.refreshHash) await this.store.delete(`refresh:${grant.refreshHash}`);
    await this.store.delete(`grant:${grant.id}`);
  }

  async issueCode(record: CodeRecord): Promise<string> {
    const code = randomToken();
    await this.store.put(`code:${hashOf(code)}`, JSON.stringify(record), CODE_TTL_MS);
    return code;
  }

  /** The code's record, once; a replay answers `{ replayOf }` with the grant it was for. */
  async redeemCode(code: string): Promise<CodeRecord | { replayOf?: string }> {
    const key = hashOf(code);
    const text = await this.store.take(`code:${key}`);
    if (!text) return { replayOf: await this.store.get(`used-code:${key}`) };
    const record = JSON.parse(text) as CodeRecord;
    await this.store.put(`used-code:${key}`, record.grantId, USED_MEMORY_MS);
    return record;
  }

  /** A new refresh token for `grant`, replacing the one it had. */
  async issueRefresh(grant: Grant): Promise<{ token: string; grant: Grant }> {
    const token = randomToken();
    const hash = hashOf(token);
    if (grant.refreshHash) await this.store.delete(`refresh:${grant.refreshHash}`);
    const next = { ...grant, refreshHash: hash };
    await this.store.put(`refresh:${hash}`, JSON.stringify({ grantId: grant.id, clientId: grant.clientId }), this.grantTtlMs);
    await this.save(next);
    return { token, grant: next };
  }

  /** The grant a refresh token is for, once; a replay answers `{ replayOf }`. */
  async redeemRefresh(token: string): Promise<{ grantId: string; clientId: string } | { replayOf?: string }> {
    const hash = hashOf(token);
    const text = await this.store.take(`refresh:${hash}`);
    if (!text) return { replayOf: await this.store.get(`used-refresh:${hash}`) };
    const record = JSON.parse(text) as { grantId: string; clientId: string };
    await this.store.put(`used-refresh:${hash}`, record.grantId, USED_MEMORY_MS);
    return record;
  }

  /** The grant a refresh token is for, without using it (for /revoke). */
  async peekRefresh(token: string): Promise<{ grantId: string; clientId: string } | undefined> {
    const text = await this.store.get(`refresh:${hashOf(token)}`);
    return text ? (JSON.parse(text) as { grantId: string; clientId: string }) : undefined;
  }
}
