import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GithubToolsetOptions } from '../../../src/toolsets/github/index.js';
import { fixture, startFakeServer, type FakeServer } from '../../fixtures/fakes/fake-server.js';
import { text } from '../../fixtures/fakes/harness.js';
import { serveGithub, TOKEN } from './serve-github.js';

let fake: FakeServer;

beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const setup = (options: Partial<GithubToolsetOptions> = {}) => serveGithub(fake, { repos: ['octocat/Hello-World', 'octo-org/*'], ...options });

describe('github_get_issue', () => {
  it("reads an issue with the token, GitHub's media type and API version, and reports it as structured content", async () => {
    fake.on('GET /repos/octocat/Hello-World/issues/1347', { json: fixture('github', 'issue-1347') });
    const result = await setup().call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1347 });

    expect(result.isError).toBeUndefined();
    const [req] = fake.requests;
    expect(req.method).toBe('GET');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers.accept).toBe('application/vnd.github+json');
    expect(req.headers['x-github-api-version']).toBe('2022-11-28');
    expect(result.structuredContent).toEqual({
      repository: 'octocat/Hello-World',
      number: 1347,
      title: 'Found a bug',
      state: 'open',
      url: 'https://github.com/octocat/Hello-World/issues/1347',
      author: 'octocat',
      labels: ['bug'],
      comments: 3,
      is_pull_request: false,
      created_at: '2011-04-22T13:33:48Z',
      updated_at: '2011-04-22T13:33:48Z',
      state_reason: null,
      assignees: ['octocat'],
      closed_at: null,
      // CRLF from GitHub becomes LF.
      body: "I'm having a problem with this.\n\nSteps:\n1. Open the app\n2. Click save",
      body_truncated: false,
    });
    expect(text(result)).toBe(
      'Issue octocat/Hello-World#1347 (open): Found a bug — by octocat, 3 comments, https://github.com/octocat/Hello-World/issues/1347.',
    );
    expect(JSON.parse(result.content[1].text)).toEqual(result.structuredContent);
  });

  it('cuts a long body at maxBodyChars and says so', async () => {
    fake.on('GET /repos/octocat/Hello-World/issues/1347', { json: { ...fixture('github', 'issue-1347'), body: 'x'.repeat(500) } });
    const result = await setup({ maxBodyChars: 100 }).call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1347 });
    expect(result.structuredContent.body).toBe('x'.repeat(100));
    expect(result.structuredContent.body_truncated).toBe(true);
    expect(text(result)).toContain('The body was cut: 400 more characters are on the issue page.');
  });

  it('reaches any repository of an owner/* entry, matching names case-insensitively', async () => {
    fake.on('GET /repos/Octo-Org/Widgets/issues/7', { json: { ...fixture('github', 'issue-1347'), number: 7 } });
    const result = await setup().call('github_get_issue', { owner: 'Octo-Org', repo: 'Widgets', number: 7 });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.repository).toBe('Octo-Org/Widgets');
  });

  it('refuses a repository outside the allow-list, listing what is allowed, without calling GitHub', async () => {
    const result = await setup().call('github_get_issue', { owner: 'octocat', repo: 'Spoon-Knife', number: 1 });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'github_get_issue may not reach octocat/Spoon-Knife: this server only allows octocat/Hello-World, octo-org/*. Use one of those repositories, or ask the user to add it to the github toolset\'s "repos" setting.',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses to run without a token, naming the environment variable, without calling GitHub', async () => {
    const result = await setup({ env: {} }).call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1347 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('No GitHub token: the TW_TEST_GITHUB_TOKEN environment variable is not set on the server.');
    expect(fake.requests).toHaveLength(0);
  });

  it('treats a blank token as absent and refuses a token with inner spaces without quoting it', async () => {
    expect(
      text(await setup({ env: { TW_TEST_GITHUB_TOKEN: '   ' } }).call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1 })),
    ).toContain('No GitHub token');
    const bad = await setup({ env: { TW_TEST_GITHUB_TOKEN: 'ghp_secret part' } }).call('github_get_issue', {
      owner: 'octocat',
      repo: 'Hello-World',
      number: 1,
    });
    expect(text(bad)).toContain('does not hold a valid GitHub token');
    expect(text(bad)).not.toContain('ghp_secret');
    expect(fake.requests).toHaveLength(0);
  });

  it('reads without a token when anonymousReads is on, sending no Authorization header', async () => {
    fake.on('GET /repos/octocat/Hello-World/issues/1347', { json: fixture('github', 'issue-1347') });
    const result = await setup({ env: {}, anonymousReads: true }).call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1347 });
    expect(result.isError).toBeUndefined();
    expect(fake.requests[0].headers.authorization).toBeUndefined();
  });

  it('reads the token at call time, so a rotated token is used without a rebuild', async () => {
    fake.on('GET /repos/octocat/Hello-World/issues/1347', { json: fixture('github', 'issue-1347') });
    const env: Record<string, string | undefined> = { TW_TEST_GITHUB_TOKEN: 'ghp_first' };
    const { call } = setup({ env });
    await call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1347 });
    env.TW_TEST_GITHUB_TOKEN = 'ghp_second';
    await call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1347 });
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(['Bearer ghp_first', 'Bearer ghp_second']);
  });

  it('rejects bad arguments before any request: number below 1, unknown fields, owner with a slash', async () => {
    const { call } = setup();
    const result = await call('github_get_issue', { owner: 'octo/cat', repo: 'Hello-World', number: 0, extra: true });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('arguments.number');
    expect(text(result)).toContain('arguments.owner');
    expect(text(result)).toContain('arguments.extra: unexpected field');
    expect(fake.requests).toHaveLength(0);
  });

  it('answers an upstream object without a number as an isError, not a crash', async () => {
    fake.on('GET /repos/octocat/Hello-World/issues/1', { json: { title: 'no number' } });
    const result = await setup().call('github_get_issue', { owner: 'octocat', repo: 'Hello-World', number: 1 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("GitHub's answer did not have the expected shape (an issue has no number)");
  });
});
