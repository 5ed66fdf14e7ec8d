import { plainFetch } from '../../io/fetch.js';
import { untilAborted } from '../deadline.js';
import { AuthorizationError } from '../errors.js';
import { discoverAuthorizationServer, discoverProtectedResource } from './discovery.js';
import { DPOP_ALGORITHM, DpopKey, readNonce } from './dpop.js';
import { grantFromUser, grantWithoutUser } from './grants.js';
import { clientFor } from './registration.js';
import { requestTokens, revokeToken, type TokenResponse } from './token-endpoint.js';
import { operationOf, probeChallenge, withBearer, withDpop } from './request-auth.js';
import { MemoryTokenStore } from './token-store.js';
import { SharedWork } from './shared-work.js';
import type { AuthorizationServer, OAuthOptions, ProtectedResource, StoredTokens, TokenStore } from './types.js';
import { canonicalResource, describe } from './urls.js';
import { parseBearerChallenge, scopeSet, type BearerChallenge } from './www-authenticate.js';

/** A token this close to its expiry is refreshed before use rather than sent to fail. */
const REFRESH_SKEW_MS = 30_000;
const DEFAULT_MAX_STEP_UPS = 2;

/**
 * OAuth 2.1 for one MCP server, as the authorization spec asks of clients
 * (basic/authorization): `fetch` sends the server's requests with its bearer
 * token and, when the server answers 401, discovers its authorization server
 * (Protected Resource Metadata, then RFC 8414 / OpenID metadata), identifies
 * the client (pre-registered, Client ID Metadata Document, or dynamic
 * registration), runs the authorization code flow with PKCE S256, the
 * `resource` parameter and RFC 9207 `iss` checks (or `client_credentials` for
 * an unattended client), and retries; on 403 `insufficient_scope` it
 * re-authorizes with the union of the scopes held and challenged, a bounded
 * number of times. Tokens are refreshed before they expire and kept in the
 * store per server and per authorization server.
 *
 * The access token is sent only to this server's URL, never after a
 * redirect; the refresh token only to the token endpoint of the
 * authorization server that issued it.
 *
 *   const oauth = new OAuthClient(url, { redirectUri, authorize, store: new FileTokenStore() });
 *   const client = await ToolClient.connect({ url, fetch: oauth.fetch });
 */
export class OAuthClient {
  /** The server's URL in canonical form: the key of its tokens and the only place the token goes. */
  readonly server: string;
  private readonly serverUrl: URL;
  private readonly store: TokenStore;
  private readonly http: typeof fetch;
  private readonly warn: (message: string) => void;
  private tokens?: StoredTokens;
  private loaded = false;
  /** Authorization prompts waiting for the user: a person's sign-in is not stopped because the requests gave up. */
  private promptsOpen = 0;
  /** The authorization or refresh in progress: concurrent requests that need one share it. */
  private readonly flight = new SharedWork(() => this.promptsOpen === 0);
  /** Metadata of the authorization servers met so far, by issuer. */
  private readonly servers = new Map<string, AuthorizationServer>();
  /** Operations whose step-up already failed, with the scope that did not help: not retried with the same scope. */
  private readonly failedStepUps = new Map<string, string>();
  /** The key DPoP-bound tokens are bound to (RFC 9449), made when an authorization server first takes proofs. */
  private dpopKey?: DpopKey;
  /** Nonces the authorization servers (by issuer) and this server asked proofs to carry (RFC 9449 §8, §9). */
  private readonly asNonces = new Map<string, string>();
  private rsNonce?: string;

  constructor(
    serverUrl: string | URL,
    readonly options: OAuthOptions = {},
  ) {
    const url = new URL(String(serverUrl));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('the server URL must be http:// or https://');
    this.serverUrl = url;
    this.server = canonicalResource(url);
    this.store = options.store ?? new MemoryTokenStore();
    this.http = plainFetch(options.fetch);
    this.warn = options.onWarning ?? (() => {});
    const grant = options.grantType ?? 'authorization_code';
    if (grant === 'client_credentials' && (options.clientId === undefined || (options.clientSecret === undefined && options.privateKey === undefined))) {
      throw new TypeError('client_credentials needs clientId with clientSecret or privateKey');
    }
    if (grant === 'jwt-bearer' && (options.clientId === undefined || options.assertion === undefined)) {
      throw new TypeError('jwt-bearer needs clientId and assertion');
    }
  }

  /** The fetch to give the server's transport (`{ url, fetch: oauth.fetch }`). */
  readonly fetch: typeof fetch = (input, init) => this.send(input, init);

  /** The tokens held for this server, if any (loaded from the store the first time). */
  async currentTokens(): Promise<StoredTokens | undefined> {
    if (!this.loaded) {
      this.tokens = await this.store.loadTokens(this.server);
      this.loaded = true;
    }
    return this.tokens;
  }

  /**
   * Authorizes now, without waiting for a request to be refused (`toolwright
   * login`): asks the server unauthenticated for its challenge, then runs the
   * flow. `scope` replaces the spec's scope selection.
   */
  async login(options: { scope?: string; signal?: AbortSignal } = {}): Promise<StoredTokens> {
    const challenge = await probeChallenge(this.http, this.serverUrl, options.signal);
    let resource: ProtectedResource;
    try {
      resource = await discoverProtectedResource(this.serverUrl, challenge.challenge, this.http, options.signal);
    } catch (err) {
      if (challenge.status === 401) throw err;
      throw new AuthorizationError(
        `${this.server} does not ask for authorization (it answered HTTP ${challenge.status} and publishes no Protected Resource Metadata): there is nothing to log in to`,
        undefined,
        { cause: err },
      );
    }
    await this.authorize(resource, options.scope ?? this.options.scope ?? challenge.challenge?.scope, undefined, options.signal);
    return this.tokens!;
  }
  /**
   * Forgets this server's tokens, here and in the store, after revoking them at the
   * authorization server that issued them where it offers revocation (RFC 7009; the refresh
   * token first, which ends its grant). Revocation is best effort: the tokens are forgotten
   * whatever the authorization server says.
   */
  async logout(options: { revoke?: boolean } = {}): Promise<{ removed: boolean; revoked: boolean }> {
    const tokens = await this.currentTokens();
    let revoked = false;
    if (tokens && options.revoke !== false) {
      try {
        const server = await this.authorizationServer(tokens.issuer);
        if (server.revocationEndpoint) {
          const client = await clientFor(server, this.options, this.store, { fetch: this.http });
          if (client.clientId === tokens.clientId) {
            const revoke = (token: string, hint: 'refresh_token' | 'access_token') =>
              revokeToken(server, client, token, hint, { fetch: this.http, privateKey: this.options.privateKey });
            if (tokens.refreshToken) await revoke(tokens.refreshToken, 'refresh_token');
            try {
              await revoke(tokens.accessToken, 'access_token');
            } catch (err) {
              // RFC 7009 §2.2.1: a server may not revoke self-contained access tokens; they expire on their own.
              if (!(tokens.refreshToken && err instanceof AuthorizationError && err.oauthError === 'unsupported_token_type')) throw err;
            }
            revoked = true;
          }
        }
      } catch (err) {
        this.warn(`revoking the tokens for ${this.server} failed (they are forgotten here all the same): ${(err as Error).message}`);
      }
    }
    this.tokens = undefined;
    this.loaded = true;
    return { removed: (await this.store.deleteTokens(this.server)) || tokens !== undefined, revoked };
  }

  private async send(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // Only this server gets its token; anything else goes out as it came.
    if (!this.isServer(url)) return this.http(input, init);
    const body = init.body;
    const replayable = body === undefined || body === null || typeof body === 'string';
    const signal = init.signal ?? undefined;
    let authorizations = 0;
    let stepUps = 0;
    let nonceRetried = false;
    for (;;) {
      const sent = await this.usableTokens(signal);
      const key = sent?.tokenType === 'DPoP' ? await this.keyOf(sent) : undefined;
      const response = await this.http(url, key && sent ? await withDpop(init, url, sent.accessToken, key, this.rsNonce) : withBearer(init, sent?.accessToken));
      const nonce = key ? readNonce(response.headers) : undefined;
      if (nonce !== undefined) this.rsNonce = nonce;
      if (response.status === 401) {
        const challenge = parseBearerChallenge(response.headers.get('www-authenticate'));
        if (!replayable) return response;
        // RFC 9449 §9: the server wants its nonce in the proof; the same token goes again, once.
        if (key && challenge?.error === 'use_dpop_nonce' && nonce !== undefined && !nonceRetried) {
          nonceRetried = true;
          await response.body?.cancel().catch(() => {});
          continue;
        }
        await response.body?.cancel().catch(() => {});
        if (authorizations >= 1) {
          throw new AuthorizationError(
            `${this.server} still refuses the request after authorization (HTTP 401${challenge?.error ? `, ${describe(challenge.error).slice(1, -1)}` : ''}${challenge?.errorDescription ? `: ${describe(challenge.errorDescription).slice(1, -1)}` : ''})`,
            challenge?.error ?? 'invalid_token',
          );
        }
        await this.flight.run((stop) => this.recover(challenge, sent, stop), signal);
        authorizations++;
        continue;
      }
      if (response.status === 403) {
        const challenge = parseBearerChallenge(response.headers.get('www-authenticate'));
        if (challenge?.error === 'insufficient_scope' && replayable) {
          await response.body?.cancel().catch(() => {});
          const operation = operationOf(init);
          const scope = scopeSet(sent?.requestedScope, sent?.scope, challenge.scope).join(' ');
          const limit = this.options.maxStepUps ?? DEFAULT_MAX_STEP_UPS;
          if (stepUps >= limit || this.failedStepUps.get(operation) === scope) {
            this.failedStepUps.set(operation, scope);
            throw new AuthorizationError(
              `${this.server} still refuses ${operation} for insufficient scope${challenge.scope ? ` (it asks for ${describe(challenge.scope)})` : ''} after ${stepUps} re-authorization${stepUps === 1 ? '' : 's'}; giving up`,
              'insufficient_scope',
            );
          }
          await this.flight.run((stop) => this.stepUp(challenge, scope, sent, stop), signal);
          stepUps++;
          continue;
        }
      }
      if (stepUps > 0) this.failedStepUps.delete(operationOf(init));
      return response;
    }
  }

  private isServer(url: URL): boolean {
    return url.origin === this.serverUrl.origin && url.pathname.replace(/\/+$/, '') === this.serverUrl.pathname.replace(/\/+$/, '');
  }

  /** Tokens to send: refreshed first when about to expire. */
  private async usableTokens(signal: AbortSignal | undefined): Promise<StoredTokens | undefined> {
    const pending = this.flight.pending;
    if (pending) await (signal ? untilAborted(pending, signal) : pending).catch(() => {});
    const tokens = await this.currentTokens();
    if (!tokens?.expiresAt || !tokens.refreshToken) return tokens;
    // Refreshed a little before it expires: 30 s, or half its life for a short-lived one.
    const skew = Math.min(REFRESH_SKEW_MS, tokens.obtainedAt !== undefined ? (tokens.expiresAt - tokens.obtainedAt) / 2 : REFRESH_SKEW_MS);
    if (tokens.expiresAt - skew > Date.now()) return tokens;
    await this.flight
      .run(async (stop) => {
        if (this.tokens !== tokens) return; // another request refreshed meanwhile
        const refreshed = await this.refresh(tokens, stop).catch(() => false);
        if (!refreshed && !stop.aborted) this.tokens = { ...tokens, refreshToken: undefined };
      }, signal)
      .catch(() => {});
    return this.tokens;
  }

  /** After a 401: refresh when the same authorization server still guards the server, else authorize again. */
  private async recover(challenge: BearerChallenge | undefined, sent: StoredTokens | undefined, signal: AbortSignal): Promise<void> {
    // Another request already replaced the refused token: just retry with the new one.
    if (this.tokens && this.tokens.accessToken !== sent?.accessToken) return;
    const resource = await discoverProtectedResource(this.serverUrl, challenge, this.http, signal);
    if (sent?.refreshToken && resource.authorizationServers.includes(sent.issuer) && sent.resource === resource.resource) {
      if (await this.refresh(sent, signal).catch(() => false)) return;
    }
    // Re-authorizing keeps what was held (authorization index.mdx "Scope Selection Strategy").
    const scope = this.options.scope ?? scopeSet(sent?.requestedScope, challenge?.scope).join(' ');
    await this.authorize(resource, scope || undefined, sent, signal);
  }

  /** After 403 insufficient_scope: a new authorization for the union of the scopes held and challenged. */
  private async stepUp(challenge: BearerChallenge, scope: string, sent: StoredTokens | undefined, signal: AbortSignal): Promise<void> {
    if (this.tokens && sent && this.tokens.accessToken !== sent.accessToken) return; // stepped up meanwhile
    const resource = await discoverProtectedResource(this.serverUrl, challenge, this.http, signal);
    await this.authorize(resource, scope, sent, signal);
  }

  /** Exchanges the refresh token at the authorization server that issued it; false when it refuses. */
  private async refresh(tokens: StoredTokens, signal?: AbortSignal): Promise<boolean> {
    if (!tokens.refreshToken) return false;
    const server = await this.authorizationServer(tokens.issuer, signal);
    const client = await clientFor(server, this.options, this.store, { fetch: this.http, signal });
    if (client.clientId !== tokens.clientId) return false; // the tokens belong to a client we no longer are
    // A DPoP-bound refresh token is refreshed with proofs of the same key (RFC 9449 §5).
    const key = tokens.tokenType === 'DPoP' ? await this.keyOf(tokens) : undefined;
    if (tokens.tokenType === 'DPoP' && !key) return false;
    try {
      const fresh = await requestTokens(
        server,
        client,
        { grantType: 'refresh_token', refreshToken: tokens.refreshToken },
        { resource: tokens.resource, fetch: this.http, signal, privateKey: this.options.privateKey, ...this.proofs(server, key) },
      );
      // Rotation (OAuth 2.1 §4.3.1): a new refresh token replaces the old; without one, the old one stays.
      await this.keep(tokens.resource, server.issuer, client.clientId, fresh, tokens.requestedScope, tokens.refreshToken);
      return true;
    } catch (err) {
      if (!signal?.aborted) this.warn(`refreshing the token for ${this.server} failed: ${(err as Error).message}`);
      return false;
    }
  }

  /** The full flow against the authorization server the Protected Resource Metadata names. */
  private async authorize(resource: ProtectedResource, requested: string | undefined, previous: StoredTokens | undefined, signal?: AbortSignal): Promise<void> {
    const issuer = this.pickIssuer(resource, previous);
    const server = await this.authorizationServer(issuer, signal);
    const grant = this.options.grantType ?? 'authorization_code';
    // Scope selection (authorization index.mdx): the challenge's, else all of scopes_supported, else none.
    const wanted = requested ?? resource.scopesSupported?.join(' ');
    let scope = wanted;
    if (scope && grant === 'authorization_code' && this.options.offlineAccess !== false && server.scopesSupported?.includes('offline_access')) {
      scope = scopeSet(scope, 'offline_access').join(' ');
    }
    const key = await this.dpopFor(server, resource);
    const context = { server: this.server, options: this.options, store: this.store, http: this.http, signal };
    const userless = grant !== 'authorization_code';
    const { client, request } = userless
      ? await grantWithoutUser(server, resource, scope, context)
      : await grantFromUser(server, resource, { wanted, scope }, context, (prompting) => this.whilePrompting(prompting));
    const tokens = await requestTokens(server, client, request, {
      resource: resource.resource,
      // The scope goes with a grant of the client's own; a person's code already carries it.
      ...(userless ? { scope } : {}),
      fetch: this.http,
      signal,
      privateKey: this.options.privateKey,
      ...this.proofs(server, key),
    });
    await this.keep(resource.resource, server.issuer, client.clientId, tokens, scope);
  }

  /** While a person is being asked, token work is not shared (SharedWork waits for no prompt). */
  private async whilePrompting<T>(prompting: () => Promise<T>): Promise<T> {
    this.promptsOpen++;
    try {
      return await prompting();
    } finally {
      this.promptsOpen--;
    }
  }

  /** The authorization server to use: the pre-registered client's, else the one already used, else the first listed. */
  private pickIssuer(resource: ProtectedResource, previous: StoredTokens | undefined): string {
    const listed = resource.authorizationServers;
    if (this.options.clientIssuer && listed.includes(this.options.clientIssuer)) return this.options.clientIssuer;
    if (previous && listed.includes(previous.issuer)) return previous.issuer;
    return listed[0];
  }

  private async authorizationServer(issuer: string, signal?: AbortSignal): Promise<AuthorizationServer> {
    const known = this.servers.get(issuer);
    if (known) return known;
    const server = await discoverAuthorizationServer(issuer, this.http, signal);
    this.servers.set(issuer, server);
    return server;
  }

  /**
   * The DPoP key to ask for bound tokens with: only when both sides take them (the authorization
   * server ES256 proofs, the resource server DPoP tokens); a bound token a Bearer-only server
   * cannot check would lock the client out.
   */
  private async dpopFor(server: AuthorizationServer, resource: ProtectedResource): Promise<DpopKey | undefined> {
    if (this.options.dpop === false || !resource.takesDpop || !server.dpopAlgorithms?.includes(DPOP_ALGORITHM)) return undefined;
    this.dpopKey ??= await DpopKey.generate();
    return this.dpopKey;
  }

  /** The key stored tokens are bound to (kept with them). */
  private async keyOf(tokens: StoredTokens): Promise<DpopKey | undefined> {
    if (this.dpopKey && this.dpopKey.privateJwk.d === tokens.dpopKey?.d) return this.dpopKey;
    const key = await DpopKey.restore(tokens.dpopKey);
    if (key) this.dpopKey = key;
    return key;
  }

  private proofs(server: AuthorizationServer, key: DpopKey | undefined): { dpop?: { key: DpopKey; nonce?: string; onNonce(nonce: string): void } } {
    if (!key) return {};
    const nonce = this.asNonces.get(server.issuer);
    return { dpop: { key, ...(nonce !== undefined ? { nonce } : {}), onNonce: (n) => this.asNonces.set(server.issuer, n) } };
  }

  private async keep(
    resource: string,
    issuer: string,
    clientId: string,
    tokens: TokenResponse,
    requestedScope: string | undefined,
    oldRefreshToken?: string,
  ): Promise<void> {
    const refreshToken = tokens.refreshToken ?? oldRefreshToken;
    const stored: StoredTokens = {
      server: this.server,
      resource,
      issuer,
      clientId,
      accessToken: tokens.accessToken,
      ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt, obtainedAt: Date.now() } : {}),
      ...(refreshToken ? { refreshToken } : {}),
      ...(tokens.scope !== undefined ? { scope: tokens.scope } : requestedScope ? { scope: requestedScope } : {}),
      ...(requestedScope ? { requestedScope } : {}),
      ...(tokens.tokenType === 'DPoP' && this.dpopKey ? { tokenType: 'DPoP' as const, dpopKey: { ...this.dpopKey.privateJwk } } : {}),
    };
    this.tokens = stored;
    this.loaded = true;
    try {
      await this.store.saveTokens(stored);
    } catch (err) {
      this.warn(`the tokens for ${this.server} could not be saved: ${(err as Error).message}`);
    }
  }
}
