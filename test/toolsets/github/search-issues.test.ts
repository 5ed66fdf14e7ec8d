import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture, startFakeServer, type FakeServer } from '../../fixtures/fakes/fake-server.js';
import { text } from '../../fixtures/fakes/harness.js';
import { serveGithub } from './serve-github.js';

const ROUTE = 'GET /search/issues';
let fake: FakeServer;

beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const setup = () => serveGithub(fake, { repos: ['octocat/Hello-World', 'octo-org/*'], env: { TW_TEST_GITHUB_TOKEN: 'ghp_search' } });

describe('github_search_issues', () => {
  it('scopes the query to the allow-list with user:/repo: qualifiers, adds is: and state:, and sends per_page', async () => {
    fake.on(ROUTE, { json: fixture('github', 'search-issues') });
    const result = await setup().call('github_search_issues', { query: 'save bug', type: 'issue' });

    const [req] = fake.requests;
    expect(req.query.get('q')).toBe('save bug user:octo-org repo:octocat/hello-world is:issue state:open');
    expect(req.query.get('per_page')).toBe('10');
    expect(req.query.has('sort')).toBe(false);
    expect(req.headers.authorization).toBe('Bearer ghp_search');
    expect(result.structuredContent).toMatchObject({ query: req.query.get('q'), total_count: 2, incomplete_results: false });
    expect(result.structuredContent.items).toEqual([
      {
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
        body_preview: "I'm having a problem with this.",
      },
      {
        repository: 'octo-org/widgets',
        number: 88,
        title: 'Fix the save bug',
        state: 'open',
        url: 'https://github.com/octo-org/widgets/pull/88',
        author: 'hubot',
        labels: [],
        comments: 0,
        is_pull_request: true,
        created_at: '2024-01-02T10:00:00Z',
        updated_at: '2024-01-03T11:30:00Z',
        body_preview: '',
      },
    ]);
    expect(text(result)).toBe(
      [
        '2 matched "save bug user:octo-org repo:octocat/hello-world is:issue state:open"; showing 2:',
        '- octocat/Hello-World#1347 [open] Found a bug (https://github.com/octocat/Hello-World/issues/1347)',
        '- octo-org/widgets#88 [open] Fix the save bug (https://github.com/octo-org/widgets/pull/88)',
      ].join('\n'),
    );
  });

  it('narrows to one allowed repository, pull requests, all states, a sort order and a limit', async () => {
    fake.on(ROUTE, { json: { total_count: 0, incomplete_results: false, items: [] } });
    const result = await setup().call('github_search_issues', {
      query: 'label:bug',
      repo: 'octo-org/widgets',
      type: 'pull_request',
      state: 'all',
      sort: 'updated',
      limit: 5,
    });
    const [req] = fake.requests;
    expect(req.query.get('q')).toBe('label:bug repo:octo-org/widgets is:pr');
    expect(req.query.get('sort')).toBe('updated');
    expect(req.query.get('order')).toBe('desc');
    expect(req.query.get('per_page')).toBe('5');
    expect(text(result)).toContain('No pull requests matched');
  });

  it('never shows an item from outside the allow-list, whatever GitHub returns', async () => {
    const search = fixture('github', 'search-issues');
    const leaked = {
      ...search.items[0],
      repository_url: 'https://api.github.com/repos/evil/secret',
      html_url: 'https://github.com/evil/secret/issues/1',
      title: 'secret',
    };
    fake.on(ROUTE, { json: { ...search, items: [leaked, search.items[0], { title: 'no repository_url', number: 3 }] } });
    const result = await setup().call('github_search_issues', { query: 'bug' });
    expect(result.structuredContent.items.map((i: any) => i.repository)).toEqual(['octocat/Hello-World']);
    expect(JSON.stringify(result)).not.toContain('evil/secret');
  });

  it('drops items of other allowed repositories when "repo" narrows the search', async () => {
    fake.on(ROUTE, { json: fixture('github', 'search-issues') });
    const result = await setup().call('github_search_issues', { query: 'bug', repo: 'octocat/Hello-World' });
    expect(result.structuredContent.items.map((i: any) => i.number)).toEqual([1347]);
  });

  it('refuses scope qualifiers in the query, which would widen the search', async () => {
    const { call } = setup();
    for (const query of ['bug repo:evil/secret', 'USER:evil bug', 'bug (org:evil)', '-repo:x/y bug', 'owner:evil']) {
      const result = await call('github_search_issues', { query });
      expect(result.isError, query).toBe(true);
      expect(text(result)).toContain('Pass the repository as the "repo" argument');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a "repo" outside the allow-list', async () => {
    const result = await setup().call('github_search_issues', { query: 'bug', repo: 'evil/secret' });
    expect(text(result)).toContain('github_search_issues may not reach evil/secret');
    expect(fake.requests).toHaveLength(0);
  });

  it("includes GitHub's message for a 422 search", async () => {
    fake.on(ROUTE, { status: 422, json: fixture('github', 'error-search-validation') });
    const result = await setup().call('github_search_issues', { query: 'bug' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      'GitHub rejected the request as invalid (422) for the issue search: Validation Failed. Field errors: q: The listed users and repositories cannot be searched',
    );
  });

  it('rejects a limit above 50 and an unknown state before any request', async () => {
    const result = await setup().call('github_search_issues', { query: 'bug', limit: 51, state: 'merged' });
    expect(text(result)).toContain('arguments.limit');
    expect(text(result)).toContain('arguments.state');
    expect(fake.requests).toHaveLength(0);
  });

  it('answers a search reply without items as an isError', async () => {
    fake.on(ROUTE, { json: { total_count: 1 } });
    const result = await setup().call('github_search_issues', { query: 'bug' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('the search answer has no items list');
  });
});
