import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GithubToolsetOptions } from '../../../src/toolsets/github/index.js';
import { closedPort, eventually, fixture, startFakeServer, type FakeServer } from '../../fixtures/fakes/fake-server.js';
import { text } from '../../fixtures/fakes/harness.js';
import { serveGithub, TOKEN } from './serve-github.js';

const ROUTE = 'GET /repos/octocat/Hello-World/issues/1';
const ARGS = { owner: 'octocat', repo: 'Hello-World', number: 1 };
let fake: FakeServer;

beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const setup = (options: Partial<GithubToolsetOptions> = {}, serverOptions: { timeoutMs?: number } = {}) => serveGithub(fake, options, serverOptions);

async function getIssue(options: Partial<GithubToolsetOptions> = {}) {
  const served = setup(options);
  const result = await served.call('github_get_issue', ARGS);
  expect(result.isError).toBe(true);
  // The token is never echoed, nor written to the server log.
  expect(JSON.stringify(result)).not.toContain(TOKEN);
  expect(JSON.stringify(served.logs)).not.toContain(TOKEN);
  return text(result);
}

describe('github errors become actionable isError results', () => {
  it('401: the token is invalid, naming the environment variable', async () => {
    fake.on(ROUTE, { status: 401, json: fixture('github', 'error-bad-credentials') });
    expect(await getIssue()).toBe(
      'GitHub rejected the token in the TW_TEST_GITHUB_TOKEN environment variable (401: Bad credentials): it is invalid, expired or revoked. Set TW_TEST_GITHUB_TOKEN to a valid token and restart the server.',
    );
  });

  it('401 on an anonymous read: authentication is required', async () => {
    fake.on(ROUTE, { status: 401, json: { message: 'Requires authentication' } });
    expect(await getIssue({ env: {}, anonymousReads: true })).toBe(
      'GitHub requires authentication for issue octocat/Hello-World#1 (401). Set the TW_TEST_GITHUB_TOKEN environment variable to a token and restart the server.',
    );
  });

  it('404: not found, or the token cannot see it', async () => {
    fake.on(ROUTE, { status: 404, json: fixture('github', 'error-not-found') });
    expect(await getIssue()).toBe(
      'GitHub found no issue octocat/Hello-World#1: it does not exist, or the token in TW_TEST_GITHUB_TOKEN cannot see it (private repositories need a token with access to them). Check the owner, repository and number.',
    );
  });

  it('403 with x-ratelimit-remaining 0: says when to retry from x-ratelimit-reset', async () => {
    const reset = Math.floor(Date.now() / 1000) + 600;
    fake.on(ROUTE, {
      status: 403,
      json: fixture('github', 'error-rate-limit'),
      headers: {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
        'x-ratelimit-used': '5000',
        'x-ratelimit-resource': 'core',
      },
    });
    const message = await getIssue();
    expect(message).toContain("GitHub's rate limit is used up (5000 requests per window) for issue octocat/Hello-World#1.");
    expect(message).toContain(`Retry after ${new Date(reset * 1000).toISOString()} (10 min from now), not sooner.`);
  });

  it('429 with retry-after: says how long to wait', async () => {
    fake.on(ROUTE, { status: 429, json: { message: 'Too many requests' }, headers: { 'retry-after': '30' } });
    const message = await getIssue();
    expect(message).toMatch(
      /^GitHub's secondary rate limit was hit \(too many requests in a short time\) for issue octocat\/Hello-World#1\. Retry after \S+Z \((29|30) s from now\), not sooner\.$/,
    );
  });

  it('403 secondary rate limit without headers: says to wait, not that the token lacks a permission', async () => {
    fake.on(ROUTE, { status: 403, json: fixture('github', 'error-secondary-rate-limit') });
    expect(await getIssue()).toBe(
      "GitHub's secondary rate limit was hit (too many requests in a short time) for issue octocat/Hello-World#1. Wait at least a minute before retrying.",
    );
  });

  it('anonymous rate limit: suggests setting a token', async () => {
    fake.on(ROUTE, {
      status: 403,
      json: { message: 'API rate limit exceeded for 127.0.0.1.' },
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 60) },
    });
    expect(await getIssue({ env: {}, anonymousReads: true })).toContain('Anonymous requests have a much lower limit: set TW_TEST_GITHUB_TOKEN to a token.');
  });

  it('5xx: temporary, retry in a minute', async () => {
    fake.on(ROUTE, { status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } });
    expect(await getIssue()).toBe('GitHub had a server error (HTTP 502) for issue octocat/Hello-World#1. It is usually temporary: retry in a minute.');
  });

  it("other statuses: the status and GitHub's cleaned message", async () => {
    fake.on(ROUTE, { status: 451, json: { message: 'Repository access blocked\u001b[31m\nfor legal reasons' } });
    expect(await getIssue()).toBe('GitHub answered HTTP 451 for issue octocat/Hello-World#1: Repository access blocked[31m for legal reasons.');
  });

  it('network failure: the API cannot be reached', async () => {
    const port = await closedPort();
    const message = await getIssue({ baseUrl: `http://127.0.0.1:${port}` });
    expect(message).toMatch(
      new RegExp(
        `^Could not reach the GitHub API at http://127.0.0.1:${port}: .*ECONNREFUSED.*\\. Check the network and the toolset's baseUrl, then retry\\.$`,
      ),
    );
  });

  it('a slow GitHub: the request is abandoned after requestTimeoutMs', async () => {
    fake.on(ROUTE, { hang: true });
    expect(await getIssue({ requestTimeoutMs: 200 })).toBe(
      'GitHub did not answer within 0.2 s (issue octocat/Hello-World#1). Retry later; if it keeps happening, the server at ' + fake.url + ' may be overloaded.',
    );
    await eventually(() => fake.requests[0]?.aborted === true);
  });

  it('a response over maxResponseBytes is refused, declared or streamed', async () => {
    const big = { ...fixture('github', 'issue-1347'), body: 'y'.repeat(5000) };
    fake.on(ROUTE, { json: big });
    expect(await getIssue({ maxResponseBytes: 2048 })).toBe(
      "GitHub's answer was larger than 2048 bytes (issue octocat/Hello-World#1), so it was not read. Ask for less (a smaller limit or a narrower query).",
    );
    fake.on(ROUTE, { json: big, chunked: true });
    expect(await getIssue({ maxResponseBytes: 2048 })).toContain("GitHub's answer was larger than 2048 bytes");
  });

  it("passes the call's signal to Octokit: a call stopped by the server timeout aborts the GitHub request", async () => {
    fake.on(ROUTE, { hang: true });
    const result = await setup({}, { timeoutMs: 150 }).call('github_get_issue', ARGS);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('timed out');
    await eventually(() => fake.requests[0]?.aborted === true);
  });
});
