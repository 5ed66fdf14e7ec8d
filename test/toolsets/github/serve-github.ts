// The github toolset pointed at the fake GitHub, with a token in a private env, for every github test.
import { githubTools, type GithubToolsetOptions } from '../../../src/toolsets/github/index.js';
import type { FakeServer } from '../../fixtures/fakes/fake-server.js';
import { serveTools } from '../../fixtures/fakes/harness.js';

export const TOKEN = 'ghp_fakeTokenForTests0123456789abcdef';

export function serveGithub(fake: FakeServer, options: Partial<GithubToolsetOptions> = {}, serverOptions: { timeoutMs?: number } = {}) {
  return serveTools(
    githubTools({
      repos: ['octocat/Hello-World'],
      baseUrl: fake.url,
      tokenEnv: 'TW_TEST_GITHUB_TOKEN',
      env: { TW_TEST_GITHUB_TOKEN: TOKEN },
      ...options,
    }),
    serverOptions,
  );
}
