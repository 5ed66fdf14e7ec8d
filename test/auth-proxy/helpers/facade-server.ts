import { createAuthProxy, type AuthProxy } from '../../../src/auth-proxy/facade.js';
import type { AuthProxyOptions } from '../../../src/auth-proxy/options.js';
import { upstreamToken } from '../../../src/policy/auth/upstream-token.js';
import { ToolServer } from '../../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../../src/transports/http-server.js';
import { freePort } from '../../helpers/free-port.js';
import { memoryLogger } from '../../helpers/wire.js';
import { startOidcUpstream, UPSTREAM_CLIENT, type UpstreamIdp } from './oidc-upstream.js';

export const ENCRYPTION_KEY = 'c2VjcmV0LWtleS1mb3ItdGVzdHMtb25seS0wMTIzNDU2Nzg5';

export interface FacadeServer {
  http: HttpServerHandle;
  proxy: AuthProxy;
  url: string;
  origin: string;
  /** What `whoami` saw: the caller id, the scopes, and the provider's token it reached. */
  calls: Array<{ id: string; scopes?: readonly string[]; upstream?: string; upstreamError?: string }>;
  logs: () => string;
  close(): Promise<void>;
}

/**
 * A toolwright server on a free 127.0.0.1 port with the facade in front, as a program
 * would mount it: `serveHttp({ auth: proxy.resourceServer(), routes: proxy.routes })`.
 * `upstream(callbackUrl)` starts the provider once the callback URL is known.
 */
export async function startFacadeServer(
  upstream: (callbackUrl: string) => Promise<Omit<AuthProxyOptions, 'encryptionKey'> & { encryptionKey?: string }>,
  options: { port?: number } = {},
): Promise<FacadeServer> {
  const port = options.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const resource = `${origin}/mcp`;
  const given = await upstream(`${origin}/oauth/callback`);
  const { logger, records } = memoryLogger();
  const proxy = createAuthProxy({ encryptionKey: ENCRYPTION_KEY, scopesSupported: ['tools:read', 'tools:write'], ...given }, resource, logger);
  const calls: FacadeServer['calls'] = [];
  const server = new ToolServer({
    name: 'facade-test',
    logger,
    audit: false,
    scopes: { defaultScopes: { readOnly: ['tools:read'], other: ['tools:write'] } },
    tools: [
      {
        name: 'whoami',
        description: 'Says who is calling, and reaches the provider token.',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        handler: async (_a, ctx) => {
          const call: FacadeServer['calls'][number] = { id: ctx.caller.id, scopes: ctx.caller.scopes };
          try {
            call.upstream = await upstreamToken(ctx.caller);
          } catch (err) {
            call.upstreamError = (err as Error).message;
          }
          calls.push(call);
          return `you are ${ctx.caller.id}`;
        },
      },
    ],
  });
  const http = await serveHttp(server, { port, auth: proxy.resourceServer(), routes: proxy.routes });
  return {
    http,
    proxy,
    url: http.url,
    origin,
    calls,
    logs: () => JSON.stringify(records),
    close: async () => {
      await http.close();
      await proxy.close();
    },
  };
}

export interface OidcFacade extends FacadeServer {
  idp: UpstreamIdp;
}

/**
 * The facade in front of a real OpenID provider (oidc-provider), as most facade tests start it:
 * `facade` adds to (or overrides) the facade's options, `idp` to the provider's. close() stops both.
 */
export async function startOidcFacade(
  facade: Partial<AuthProxyOptions> = {},
  idp: { skipConsent?: boolean; accessTokenTtlSeconds?: number } = {},
): Promise<OidcFacade> {
  let started: UpstreamIdp | undefined;
  const server = await startFacadeServer(async (callbackUrl) => {
    started = await startOidcUpstream({ callbackUrl, ...idp });
    return { provider: 'oidc', issuer: started.issuer, clientId: UPSTREAM_CLIENT.id, clientSecret: UPSTREAM_CLIENT.secret, ...facade };
  });
  const upstream = started!;
  return {
    ...server,
    idp: upstream,
    close: async () => {
      await server.close();
      await upstream.close();
    },
  };
}
