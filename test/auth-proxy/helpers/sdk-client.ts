import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { browse, type BrowserOptions, type BrowserRun } from './browser.js';

/** The official SDK client's OAuth provider, in memory; its redirect URI is a loopback one nobody listens on (the test's browser stops there). */
export class MemoryOAuthProvider implements OAuthClientProvider {
  clientInfo: any;
  savedTokens: any;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirect = 'http://127.0.0.1:43110/callback') {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: 'SDK test client',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: unknown) {
    this.clientInfo = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: unknown) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery: any;
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/**
 * The SDK client's whole flow against a facade: connect (401 → metadata → registration →
 * authorization URL), the user's browser through consent and the provider, finishAuth with the
 * code, connect again. Returns the connected client and what the browser went through.
 */
export async function sdkSignIn(
  url: string,
  browser: Partial<BrowserOptions> = {},
  provider = new MemoryOAuthProvider(),
): Promise<{ client: Client; provider: MemoryOAuthProvider; run: BrowserRun }> {
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const probe = new Client({ name: 'sdk-oauth', version: '1.0.0' });
  await probe.connect(first).then(
    () => {
      throw new Error('connected without signing in');
    },
    (err: unknown) => {
      if (!(err instanceof UnauthorizedError)) throw err;
    },
  );
  if (!provider.authorizationUrl) throw new Error('the SDK never asked to open the authorization URL');
  const run = await browse(provider.authorizationUrl, { stopAt: (u) => u.href.startsWith(provider.redirect), ...browser });
  const code = run.landedOn?.searchParams.get('code');
  if (!code) throw new Error(`the browser came back without a code: ${run.landedOn?.href ?? run.page?.html?.slice(0, 300)}`);
  await first.finishAuth(run.landedOn!.searchParams);
  const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }), { timeout: 10_000 });
  return { client, provider, run };
}
