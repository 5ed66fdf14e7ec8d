import { describe, expect, it } from 'vitest';
import { githubTools } from '../../../src/toolsets/github/index.js';
import { serveTools } from '../../fixtures/fakes/harness.js';

describe('github toolset definitions', () => {
  it('lists three tools with full schemas, stated side effects and correct annotations', async () => {
    const tools = await serveTools(githubTools({ repos: ['octocat/Hello-World'], baseUrl: 'http://127.0.0.1:9' })).list();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(['github_create_issue', 'github_get_issue', 'github_search_issues']);

    expect(byName.get('github_create_issue')!.annotations).toEqual({
      title: 'Create a GitHub issue',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(byName.get('github_get_issue')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    expect(byName.get('github_search_issues')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });

    for (const tool of tools) {
      expect(tool.description, tool.name).toContain('Side effects:');
      expect(tool.description, tool.name).toContain('octocat/Hello-World');
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      for (const [key, prop] of Object.entries(tool.inputSchema.properties as Record<string, any>)) {
        expect(prop.description, `${tool.name}.${key}`).toBeTruthy();
      }
    }
    const search = byName.get('github_search_issues')!.inputSchema.properties;
    expect(search.state).toMatchObject({ enum: ['open', 'closed', 'all'], default: 'open' });
    expect(search.limit).toMatchObject({ minimum: 1, maximum: 50, default: 10 });
  });

  it('fails at start-up, naming the option, for an unusable configuration', () => {
    expect(() => githubTools({ repos: [] })).toThrow('"repos" is empty');
    expect(() => githubTools({ repos: ['octocat'] })).toThrow('repos entry "octocat" is not "owner/name" or "owner/*"');
    expect(() => githubTools({ repos: ['*/*'] })).toThrow('repos entry "*/*"');
    expect(() => githubTools({ repos: ['a/b/c'] })).toThrow('repos entry "a/b/c"');
    // Whole messages: they are built by the checks shared with the weather toolset (src/toolsets/options.ts).
    const fails = (options: Partial<Parameters<typeof githubTools>[0]>, message: string) =>
      expect(() => githubTools({ repos: ['a/b'], ...options })).toThrow(new TypeError(message));
    fails({ baseUrl: 'not a url' }, 'github toolset: "baseUrl" is not a URL: "not a url"');
    fails({ baseUrl: 'ftp://example.test' }, 'github toolset: "baseUrl" must be an http(s) URL');
    fails({ baseUrl: 'https://user:pw@example.test' }, 'github toolset: "baseUrl" must not carry credentials; use tokenEnv');
    fails({ tokenEnv: 'MY TOKEN' }, 'github toolset: "tokenEnv" must be an environment variable name, got "MY TOKEN"');
    fails({ requestTimeoutMs: 0 }, 'github toolset: "requestTimeoutMs" must be a positive integer');
    fails({ maxResponseBytes: -1 }, 'github toolset: "maxResponseBytes" must be a positive integer');
    fails({ maxBodyChars: 1.5 }, 'github toolset: "maxBodyChars" must be a positive integer');
  });
});
