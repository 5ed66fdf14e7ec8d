import { describe, expect, it } from 'vitest';
import { PromptRegistry } from '../../src/server/primitives/prompts/registry.js';
import { ResourceRegistry } from '../../src/server/primitives/resources/registry.js';
import { ToolRegistry } from '../../src/server/registry.js';
import type { Tool } from '../../src/server/tool.js';

const tool = (name: string, description = `the ${name} tool`): Tool => ({ name, description, inputSchema: { type: 'object' }, handler: () => name });

// What `toolwright dev` does when one source (a tools module, a prompts folder) changes: its
// entries are swapped in one change, the others' stay where they were.
describe('replacing one source’s entries in a registry', () => {
  it('swaps the named tools for the new ones in their place, with one change', () => {
    const tools = new ToolRegistry().add(tool('a'), tool('m1'), tool('m2'), tool('z'));
    let changes = 0;
    tools.onChange(() => changes++);
    tools.replace(['m1', 'm2'], [tool('m2', 'new m2'), tool('m3')]);
    expect(tools.names()).toEqual(['a', 'm2', 'm3', 'z']);
    expect(tools.get('m2')!.tool.description).toBe('new m2');
    expect(changes).toBe(1);
  });

  it('changes nothing when a new tool is invalid, or takes a name another source holds', () => {
    const tools = new ToolRegistry().add(tool('a'), tool('m1'));
    expect(() => tools.replace(['m1'], [tool('ok'), { ...tool('bad'), inputSchema: { type: 'nonsense' } } as Tool])).toThrow(/Invalid tool "bad"/);
    expect(() => tools.replace(['m1'], [tool('a')])).toThrow('Invalid tool "a": a tool with this name is already registered');
    expect(() => tools.replace(['m1'], [tool('x'), tool('x')])).toThrow(/"x"/);
    expect(tools.names()).toEqual(['a', 'm1']);
  });

  it('keeps a tool disabled across a reload that keeps it, and forgets one the reload dropped', () => {
    const tools = new ToolRegistry().add(tool('a'), tool('b'));
    tools.disable('a');
    tools.disable('b');
    tools.replace(['a', 'b'], [tool('a')]);
    expect(tools.isEnabled('a')).toBe(false);
    tools.add(tool('b'));
    expect(tools.isEnabled('b')).toBe(true);
  });

  it('swaps prompts, and resources with templates, all or nothing', () => {
    const prompts = new PromptRegistry().add({ name: 'p', get: () => 'x' }, { name: 'other', get: () => 'y' });
    prompts.replace(['p'], [{ name: 'q', get: () => 'x' }]);
    expect(prompts.list().map((p) => p.name)).toEqual(['q', 'other']);

    const resources = new ResourceRegistry();
    resources.add({ uri: 'file:///a', name: 'a', read: () => 'x' }, { uri: 'file:///kept', name: 'kept', read: () => 'x' });
    resources.addTemplate({ uriTemplate: 'file:///t/{x}', name: 't', read: () => 'x' });
    expect(() =>
      resources.replace(
        { uris: ['file:///a'], templates: ['file:///t/{x}'] },
        { resources: [{ uri: 'file:///kept', name: 'clash', read: () => 'x' }], templates: [{ uriTemplate: 'file:///u/{x}', name: 'u', read: () => 'x' }] },
      ),
    ).toThrow(/already registered/);
    expect(resources.templates().map((t) => t.uriTemplate.template)).toEqual(['file:///t/{x}']);
    resources.replace(
      { uris: ['file:///a'], templates: ['file:///t/{x}'] },
      { resources: [{ uri: 'file:///b', name: 'b', read: () => 'x' }], templates: [{ uriTemplate: 'file:///u/{x}', name: 'u', read: () => 'x' }] },
    );
    expect(resources.list().map((r) => r.uri)).toEqual(['file:///b', 'file:///kept']);
    expect(resources.templates().map((t) => t.uriTemplate.template)).toEqual(['file:///u/{x}']);
  });
});
