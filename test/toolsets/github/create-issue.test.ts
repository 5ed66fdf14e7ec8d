import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GithubToolsetOptions } from '../../../src/toolsets/github/index.js';
import { fixture, startFakeServer, type FakeServer } from '../../fixtures/fakes/fake-server.js';
import { text } from '../../fixtures/fakes/harness.js';
import { serveGithub, TOKEN } from './serve-github.js';

const ROUTE = 'POST /repos/octocat/Hello-World/issues';
let fake: FakeServer;

beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const setup = (options: Partial<GithubToolsetOptions> = {}) => serveGithub(fake, options);

const args = {
  owner: 'octocat',
  repo: 'Hello-World',
  title: 'Crash when saving an empty file',
  body: 'Saving an empty file crashes the editor.',
  labels: ['bug'],
};

describe('github_create_issue', () => {
  it('POSTs the title, body and labels as JSON with the token and returns the new issue', async () => {
    fake.on(ROUTE, { status: 201, json: fixture('github', 'created-issue') });
    const result = await setup().call('github_create_issue', args);

    expect(result.isError).toBeUndefined();
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toContain('application/json');
    expect(req.json).toEqual({ title: args.title, body: args.body, labels: ['bug'] });
    expect(result.structuredContent).toMatchObject({
      repository: 'octocat/Hello-World',
      number: 1348,
      url: 'https://github.com/octocat/Hello-World/issues/1348',
      labels: ['bug'],
      labels_not_applied: [],
      is_pull_request: false,
    });
    expect(text(result)).toBe('Created issue octocat/Hello-World#1348: Crash when saving an empty file — https://github.com/octocat/Hello-World/issues/1348.');
  });

  it('sends only the title when body and labels are not given', async () => {
    fake.on(ROUTE, { status: 201, json: { ...fixture('github', 'created-issue'), labels: [] } });
    await setup().call('github_create_issue', { owner: 'octocat', repo: 'Hello-World', title: 'Just a title' });
    expect(fake.requests[0].json).toEqual({ title: 'Just a title' });
  });

  it('reports labels GitHub silently dropped (no push access)', async () => {
    fake.on(ROUTE, { status: 201, json: { ...fixture('github', 'created-issue'), labels: [] } });
    const result = await setup().call('github_create_issue', { ...args, labels: ['bug', 'p1'] });
    expect(result.structuredContent.labels_not_applied).toEqual(['bug', 'p1']);
    expect(text(result)).toContain('GitHub did not apply the labels bug, p1 (the token needs push access to set labels).');
  });

  it("includes GitHub's field errors in a 422 answer", async () => {
    fake.on(ROUTE, { status: 422, json: fixture('github', 'error-validation') });
    const result = await setup().call('github_create_issue', args);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'GitHub rejected the request as invalid (422) for repository octocat/Hello-World: Validation Failed. ' +
        'Field errors: title: is required (value ""); milestone: is invalid (value "no-such-milestone"). Correct the arguments and retry.',
    );
  });

  it('explains a 403 without rate-limit headers as a missing permission, naming the env var and what GitHub asks for', async () => {
    fake.on(ROUTE, { status: 403, json: fixture('github', 'error-forbidden'), headers: { 'x-accepted-github-permissions': 'issues=write' } });
    const result = await setup().call('github_create_issue', args);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('GitHub refused access to repository octocat/Hello-World (403: Resource not accessible by personal access token)');
    expect(text(result)).toContain('The token in TW_TEST_GITHUB_TOKEN lacks the permission it needs (issues=write;');
  });

  it('explains a 403 from an SSO-protected organization', async () => {
    fake.on(ROUTE, {
      status: 403,
      json: { message: 'Resource protected by organization SAML enforcement.' },
      headers: { 'x-github-sso': 'required; url=https://github.com/orgs/octocat/sso?authorization_request=abc' },
    });
    const result = await setup().call('github_create_issue', args);
    expect(text(result)).toContain('requires SAML single sign-on: the token in TW_TEST_GITHUB_TOKEN must be authorized for it');
  });

  it('explains 410 Gone as issues being disabled', async () => {
    fake.on(ROUTE, { status: 410, json: fixture('github', 'error-issues-disabled') });
    const result = await setup().call('github_create_issue', args);
    expect(text(result)).toBe(
      'GitHub answered 410 Gone for repository octocat/Hello-World: Issues are disabled for this repo. Issues may be disabled in this repository, or the issue was deleted.',
    );
  });

  it('never creates in a repository outside the allow-list', async () => {
    const result = await setup().call('github_create_issue', { ...args, repo: 'Other' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('this server only allows octocat/Hello-World');
    expect(fake.requests).toHaveLength(0);
  });

  it('needs a token even when anonymous reads are allowed', async () => {
    const result = await setup({ env: {}, anonymousReads: true }).call('github_create_issue', args);
    expect(text(result)).toContain(
      'No GitHub token: the TW_TEST_GITHUB_TOKEN environment variable is not set on the server. Set it to a token with "Issues: write" access',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects a blank title, a duplicate label and an overlong label before any request', async () => {
    const result = await setup().call('github_create_issue', { owner: 'octocat', repo: 'Hello-World', title: '   ', labels: ['a', 'a', 'x'.repeat(51)] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('arguments.title');
    expect(text(result)).toContain('arguments.labels');
    expect(fake.requests).toHaveLength(0);
  });

  it("with approveCreate, waits for the user's approval and never posts for a client that cannot give it", async () => {
    fake.on(ROUTE, { status: 201, json: fixture('github', 'created-issue') });
    const result = await setup({ approveCreate: true }).call('github_create_issue', args);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/approv/i);
    expect(fake.requests).toHaveLength(0);
  });
});
