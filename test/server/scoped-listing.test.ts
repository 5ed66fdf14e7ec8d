import { describe, expect, it } from 'vitest';
import type { AuthInfo } from '../../src/policy/auth/principal.js';
import { ScopePolicy } from '../../src/policy/auth/scope-policy.js';
import { ResultEncoder } from '../../src/protocol/result.js';
import { ToolRegistry } from '../../src/server/registry.js';
import { ScopedToolListing } from '../../src/server/scoped-listing.js';
import type { Tool } from '../../src/server/tool.js';

const tool = (name: string, scopes?: string[]): Tool => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  handler: () => name,
  ...(scopes ? { scopes } : {}),
});
const caller = (scopes: string[], id = 'x'): AuthInfo => ({ id, scopes, claims: {}, method: 'jwt' });

function setup() {
  const registry = new ToolRegistry().add(tool('open'), tool('read', ['r']), tool('write', ['w']));
  const policy = new ScopePolicy();
  let checks = 0;
  const lists = policy.lists.bind(policy);
  policy.lists = (t, granted) => {
    checks++;
    return lists(t, granted);
  };
  const listing = new ScopedToolListing(registry, 100, { ttlMs: 1000, cacheScope: 'public' }, new ResultEncoder({ name: 't', version: '1' }), policy);
  const page = (auth?: AuthInfo) => JSON.parse(listing.pageJson('modern', undefined, auth)).tools.map((t: { name: string }) => t.name);
  return { registry, listing, page, checks: () => checks };
}

describe('tools/list pages per scope set', () => {
  it("builds a scope set's list once, shared by every caller with the same relevant scopes", () => {
    const { page, checks } = setup();
    expect(page(caller(['r']))).toEqual(['open', 'read']);
    const after = checks();
    expect(after).toBeGreaterThan(0);
    // Another token, same scopes that matter (plus one no tool needs): no new filtering.
    expect(page(caller(['r', 'unrelated'], 'y'))).toEqual(['open', 'read']);
    expect(checks()).toBe(after);
    expect(page(caller(['r', 'w']))).toEqual(['open', 'read', 'write']);
    expect(checks()).toBeGreaterThan(after);
  });

  it('rebuilds after a registry change', () => {
    const { page, registry } = setup();
    const alice = caller(['w']);
    expect(page(alice)).toEqual(['open', 'write']);
    registry.add(tool('write_more', ['w']));
    expect(page(alice)).toEqual(['open', 'write', 'write_more']);
  });

  it('marks a filtered list private and leaves callers without scope information the public list', () => {
    const { listing } = setup();
    expect(JSON.parse(listing.pageJson('modern', undefined, caller([]))).cacheScope).toBe('private');
    expect(JSON.parse(listing.pageJson('modern', undefined, undefined)).cacheScope).toBe('public');
    expect(JSON.parse(listing.pageJson('modern', undefined, { id: 'hook', claims: {}, method: 'custom' })).tools).toHaveLength(3);
  });
});

it('refuses a tool whose scopes are not scope strings', () => {
  expect(() => new ToolRegistry().add(tool('bad', ['has space']))).toThrow(/Invalid tool "bad": scopes holds "has space"/);
});

describe('resources/list and prompts/list pages per scope set', () => {
  it("builds each scope set's resource page once, shared by tokens with the same relevant scopes, and rebuilds on change", async () => {
    const { ResourceRegistry } = await import('../../src/server/primitives/resources/registry.js');
    const { ScopedListing } = await import('../../src/server/scoped-listing.js');
    const resources = new ResourceRegistry().add(
      { uri: 'a://open', name: 'open', read: () => '' },
      { uri: 'a://docs', name: 'docs', scopes: ['docs'], read: () => '' },
    );
    const policy = new ScopePolicy();
    let checks = 0;
    const listing = new ScopedListing(
      resources,
      'resources',
      100,
      { ttlMs: 1000, cacheScope: 'public' },
      new ResultEncoder({ name: 't', version: '1' }),
      policy,
      (r) => {
        checks++;
        return policy.resourceRequirement(r.scope);
      },
    );
    const page = (auth?: AuthInfo) => JSON.parse(listing.pageJson('modern', undefined, auth));
    expect(page(caller(['docs'])).resources.map((r: { uri: string }) => r.uri)).toEqual(['a://open', 'a://docs']);
    const after = checks;
    const again = page(caller(['docs', 'other'], 'y'));
    expect(again.resources).toHaveLength(2);
    expect(again.cacheScope).toBe('private');
    expect(checks).toBe(after);
    expect(page(caller([])).resources.map((r: { uri: string }) => r.uri)).toEqual(['a://open']);
    resources.add({ uri: 'a://more', name: 'more', scopes: ['docs'], read: () => '' });
    expect(page(caller(['docs'])).resources).toHaveLength(3);
    expect(page(undefined).cacheScope).toBe('public');
  });
});
