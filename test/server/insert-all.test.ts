import { describe, expect, it } from 'vitest';
import { PromptRegistry } from '../../src/server/primitives/prompts/registry.js';
import { ResourceRegistry } from '../../src/server/primitives/resources/registry.js';

// The prompt and resource registries add all or nothing, as the tool registry
// does (test/server/registry.test.ts): one insertAllOrNone serves all three.
describe('registering prompts, resources and templates is all or nothing', () => {
  it('a prompt name taken, or given twice in one call, is refused and the batch registers nothing', () => {
    const prompts = new PromptRegistry();
    let changes = 0;
    prompts.onChange(() => changes++);
    prompts.add({ name: 'a', get: () => 'x' });
    expect(() => prompts.add({ name: 'b', get: () => 'x' }, { name: 'a', get: () => 'x' })).toThrow(
      'Invalid prompt "a": a prompt with this name is already registered',
    );
    expect(() => prompts.add({ name: 'c', get: () => 'x' }, { name: 'c', get: () => 'x' })).toThrow(
      'Invalid prompt "c": a prompt with this name is already registered',
    );
    expect(prompts.list().map((p) => p.name)).toEqual(['a']);
    expect([prompts.version, changes]).toEqual([1, 1]);
  });

  it('a resource URI or a uriTemplate taken, or given twice, is refused and the batch registers nothing', () => {
    const resources = new ResourceRegistry();
    resources.add({ uri: 'file:///a', name: 'a', read: () => 'x' });
    resources.addTemplate({ uriTemplate: 'file:///t/{x}', name: 't', read: () => 'x' });
    expect(() => resources.add({ uri: 'file:///b', name: 'b', read: () => 'x' }, { uri: 'file:///a', name: 'a2', read: () => 'x' })).toThrow(
      'Invalid resource "file:///a": a resource with this URI is already registered',
    );
    expect(() => resources.add({ uri: 'file:///c', name: 'c', read: () => 'x' }, { uri: 'file:///c', name: 'c2', read: () => 'x' })).toThrow(
      'a resource with this URI is already registered',
    );
    expect(() =>
      resources.addTemplate({ uriTemplate: 'file:///u/{x}', name: 'u', read: () => 'x' }, { uriTemplate: 'file:///t/{x}', name: 't2', read: () => 'x' }),
    ).toThrow('Invalid resource "file:///t/{x}": a template with this uriTemplate is already registered');
    expect(resources.list().map((r) => r.uri)).toEqual(['file:///a']);
    expect(resources.templates().map((t) => t.uriTemplate.template)).toEqual(['file:///t/{x}']);
    expect(resources.version).toBe(2);
  });
});
