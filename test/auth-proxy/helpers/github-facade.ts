import { join } from 'node:path';
import { buildServer, type ServerPlan } from '../../../src/config/build.js';
import type { Tool } from '../../../src/server/tool.js';
import { serveHttp, type HttpServerHandle } from '../../../src/transports/http-server.js';
import { freePort } from '../../helpers/free-port.js';
import { ENCRYPTION_KEY } from './facade-server.js';
import { GITHUB_CLIENT, startGithubLike, type GithubLike } from './github-like.js';

/**
 * A server built from a config with `server.auth.proxy: { provider: github }`, served over HTTP
 * on 127.0.0.1, with a GitHub-like provider standing in for github.com; the secrets come from
 * the environment as `${VAR}`s, as a user's config would take them. `store` names the facade's
 * SQLite file (in `dir`); without it the facade keeps its grants in memory.
 */
export interface GithubFacade {
  github: GithubLike;
  plan: ServerPlan;
  http: HttpServerHandle;
  close(): Promise<void>;
}

export async function startGithubFacade(dir: string, tools: Tool[], options: { store?: string } = {}): Promise<GithubFacade> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const github = await startGithubLike({ callbackUrl: `${origin}/oauth/callback` });
  process.env.TW_TEST_GITHUB_SECRET = GITHUB_CLIENT.secret;
  process.env.TW_TEST_SEAL_KEY = ENCRYPTION_KEY;
  const proxy = {
    provider: 'github' as const,
    clientId: GITHUB_CLIENT.id,
    clientSecret: '${TW_TEST_GITHUB_SECRET}',
    encryptionKey: '${TW_TEST_SEAL_KEY}',
    githubUrl: github.url,
    githubApiUrl: github.apiUrl,
    ...(options.store ? { store: join(dir, options.store) } : {}),
  };
  const plan = buildServer({ server: { audit: false, auth: { resource: `${origin}/mcp`, scopesSupported: ['tools:read'], proxy } } }, dir, '0.0.0-test');
  plan.server.addTool(...tools);
  const http = await serveHttp(plan.server, { ...plan.http, port });
  return {
    github,
    plan,
    http,
    async close() {
      await http.close();
      await plan.authProxy?.close();
      await github.close();
    },
  };
}
