import { describe, expect, it } from 'vitest';
import { compileTool } from '../../src/server/compile-tool.js';
import { compilePrompt } from '../../src/server/primitives/prompts/compile.js';
import { compileResource, compileTemplate } from '../../src/server/primitives/resources/compile.js';

// The fields tools, resources, templates and prompts define alike are checked
// by one set of functions (src/server/definition-fields.ts); each kind of
// definition still names itself in the error.
const tool = (extra: Record<string, unknown>) => () =>
  compileTool({ name: 't', description: 'd', inputSchema: { type: 'object' }, handler: () => 'x', ...extra } as never);
const prompt = (extra: Record<string, unknown>) => () => compilePrompt({ name: 'p', get: () => 'x', ...extra } as never);
const resource = (extra: Record<string, unknown>) => () => compileResource({ uri: 'file:///r', name: 'r', read: () => 'x', ...extra } as never);
const template = (extra: Record<string, unknown>) => () => compileTemplate({ uriTemplate: 'file:///{name}', name: 'r', read: () => 'x', ...extra } as never);

describe('fields every definition shares', () => {
  it('a scope list that is not a list of scope tokens is refused by every kind, naming the field', () => {
    expect(tool({ scopes: 'read' })).toThrow(/^Invalid tool "t": .*scopes/);
    expect(tool({ visibilityScopes: ['a b'] })).toThrow(/^Invalid tool "t": .*visibilityScopes/);
    expect(prompt({ scopes: [1] })).toThrow(/^Invalid prompt "p": .*scopes/);
    expect(resource({ visibilityScopes: 'x' })).toThrow(/^Invalid resource "file:\/\/\/r": .*visibilityScopes/);
    expect(template({ scopes: [''] })).toThrow(/^Invalid resource "file:\/\/\/\{name\}": .*scopes/);
  });

  it('title, description, icons, _meta and timeoutMs are checked alike for prompts, resources and templates', () => {
    for (const make of [prompt, resource, template]) {
      expect(make({ title: 5 })).toThrow('"title" must be a string');
      expect(make({ description: {} })).toThrow('"description" must be a string');
      expect(make({ icons: [{ mimeType: 'image/png' }] })).toThrow('"icons" must be a list of { src, mimeType?, sizes? }');
      expect(make({ icons: 'x.png' })).toThrow('"icons" must be a list of { src, mimeType?, sizes? }');
      expect(make({ _meta: [] })).toThrow('"_meta" must be an object');
      expect(make({ timeoutMs: 0 })).toThrow('"timeoutMs" must be a positive integer');
      expect(make({ timeoutMs: 1.5 })).toThrow('"timeoutMs" must be a positive integer');
    }
  });

  it('well-formed shared fields are accepted', () => {
    const fine = {
      title: 'T',
      description: 'D',
      icons: [{ src: 'https://example.com/i.png' }],
      _meta: { a: 1 },
      timeoutMs: 1000,
      scopes: ['read'],
      visibilityScopes: ['see'],
    };
    expect(prompt(fine)).not.toThrow();
    expect(resource(fine)).not.toThrow();
    expect(template(fine)).not.toThrow();
    expect(tool({ scopes: ['read'], visibilityScopes: ['see'] })).not.toThrow();
  });

  it("a resource's mimeType follows the rule content blocks follow (protocol/content.ts MIME)", () => {
    for (const make of [resource, template]) {
      expect(make({ mimeType: 'text' })).toThrow('"mimeType" is not a MIME type (type/subtype)');
      expect(make({ mimeType: 'text/plain; charset=utf-8' })).not.toThrow();
    }
  });
});
