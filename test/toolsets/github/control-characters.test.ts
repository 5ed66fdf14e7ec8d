import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkMultiLine, checkSingleLine } from '../../../src/toolsets/github/input-text.js';
import { ToolError } from '../../../src/server/tool.js';
import { fixture, startFakeServer, type FakeServer } from '../../fixtures/fakes/fake-server.js';
import { text } from '../../fixtures/fakes/harness.js';
import { serveGithub } from './serve-github.js';

/**
 * Issue titles, labels and search queries are one line of text: a line break
 * or terminal escape in them reaches GitHub (and every reader of the issue
 * list) as it is. Bodies keep line breaks and tabs, nothing else of C0/C1.
 */
const ROUTE = 'POST /repos/octocat/Hello-World/issues';
let fake: FakeServer;

beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const base = { owner: 'octocat', repo: 'Hello-World', title: 'A fine title' };

describe('github tools refuse control characters in single-line fields', () => {
  it.each([
    ['a title with CR/LF', { title: 'line1\nline2\r\nline3' }, 'arguments.title'],
    ['a title with a tab', { title: 'a\tb' }, 'arguments.title'],
    ['a title with an escape sequence', { title: 'ok \u001b[31mred' }, 'arguments.title'],
    ['a title with NUL', { title: 'a\u0000b' }, 'arguments.title'],
    ['a title with a C1 control', { title: 'a\u0085b' }, 'arguments.title'],
    ['a title with a Unicode line separator', { title: 'a\u2028b' }, 'arguments.title'],
    ['a label with a newline', { labels: ['bug\ninjected'] }, 'arguments.labels[0]'],
    ['a body with an escape sequence', { body: 'text \u001b]0;title\u0007 more' }, 'arguments.body'],
    ['a body with DEL', { body: 'a\u007fb' }, 'arguments.body'],
  ])('github_create_issue refuses %s, naming the field, and sends nothing', async (_what, extra, field) => {
    fake.on(ROUTE, { status: 201, json: fixture('github', 'created-issue') });
    const result = await serveGithub(fake).call('github_create_issue', { ...base, ...extra });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(field);
    expect(fake.requests).toHaveLength(0);
  });

  it('github_create_issue keeps line breaks and tabs in the body, and emoji and right-to-left text anywhere', async () => {
    fake.on(ROUTE, { status: 201, json: fixture('github', 'created-issue') });
    const body = 'Steps:\r\n1.\tOpen\n2.\tSave 👩‍💻 שלום';
    const result = await serveGithub(fake).call('github_create_issue', { ...base, title: 'Crash 👩‍💻 שלום', body, labels: ['good first issue'] });
    expect(result.isError).toBeUndefined();
    expect(fake.requests[0].json).toEqual({ title: 'Crash 👩‍💻 שלום', body, labels: ['good first issue'] });
  });

  it('github_search_issues refuses a query with a line break', async () => {
    const result = await serveGithub(fake).call('github_search_issues', { query: 'bug\nrepo:evil/x' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('arguments.query');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the checks behind the schema patterns', () => {
  it('name the field and the character', () => {
    expect(() => checkSingleLine('github_create_issue', 'title', 'line1\nline2')).toThrow(ToolError);
    expect(() => checkSingleLine('github_create_issue', 'title', 'line1\nline2')).toThrow(
      'github_create_issue: "title" must be one line of text without control characters; it holds U+000A (line feed) at character 6. Remove line breaks, tabs and other control characters.',
    );
    expect(() => checkSingleLine('github_create_issue', 'labels[1]', 'x\u009by')).toThrow(
      '"labels[1]" must be one line of text without control characters; it holds U+009B',
    );
    expect(() => checkMultiLine('github_create_issue', 'body', 'ok\n\tfine\r\n\u001b[2J')).toThrow(
      '"body" may hold line breaks and tabs but no other control characters; it holds U+001B (escape) at character 11.',
    );
    expect(() => checkSingleLine('t', 'title', 'Crash 👩‍💻 שלום')).not.toThrow();
    expect(() => checkMultiLine('t', 'body', 'a\r\nb\tc')).not.toThrow();
  });
});
