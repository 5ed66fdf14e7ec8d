import { describe, expect, it } from 'vitest';
import { defineAppResource, defineAppTool, ResourceDefinitionError, ToolDefinitionError } from '../../../src/index.js';

const tool = { name: 'show', description: 'Show', inputSchema: { type: 'object' } as const, handler: () => 'ok' };

describe('defineAppResource refuses what no host could show safely', () => {
  it.each([['https://example.com/view'], ['ui:'], ['ui://'], ['ui://has space'], ['file:///etc/passwd']])('a non-ui:// URI %j', (uri) => {
    expect(() => defineAppResource({ uri, name: 'v', html: '<p>' })).toThrow(ResourceDefinitionError);
    expect(() => defineAppResource({ uri, name: 'v', html: '<p>' })).toThrow(/ui:\/\//);
  });

  it.each([
    [{ connectDomains: ["'unsafe-eval'"] }],
    [{ connectDomains: ['https://a.example.com; script-src *'] }],
    [{ resourceDomains: ['*'] }],
    [{ resourceDomains: ['data:'] }],
    [{ frameDomains: ['http://a.example.com'] }],
    [{ baseUriDomains: ['https://a.example.com/path'] }],
    [{ connectDomains: 'https://a.example.com' }],
    [{ scriptDomains: ['https://a.example.com'] }],
    [{ resourceDomains: ['wss://a.example.com'] }],
  ])('a csp entry that is not an https origin: %j', (csp) => {
    expect(() => defineAppResource({ uri: 'ui://x/v', name: 'v', html: '<p>', csp: csp as never })).toThrow(ResourceDefinitionError);
  });

  it('takes wss:// origins in connectDomains', () => {
    const app = defineAppResource({ uri: 'ui://x/v', name: 'v', html: '', csp: { connectDomains: ['wss://live.example.com'] } });
    expect(app._meta).toEqual({ ui: { csp: { connectDomains: ['wss://live.example.com'] } } });
  });

  it('unknown permissions, a non-boolean prefersBorder, an html that is not a string or function', () => {
    expect(() => defineAppResource({ uri: 'ui://x/v', name: 'v', html: '', permissions: { usb: {} } as never })).toThrow(/unknown permission "usb"/);
    expect(() => defineAppResource({ uri: 'ui://x/v', name: 'v', html: '', prefersBorder: 'yes' as never })).toThrow(/prefersBorder/);
    expect(() => defineAppResource({ uri: 'ui://x/v', name: 'v', html: 42 as never })).toThrow(/html/);
  });

  it('a read whose html() returns no string fails with a message naming the app', async () => {
    const app = defineAppResource({ uri: 'ui://x/v', name: 'v', html: () => 42 as never });
    await expect(Promise.resolve(app.read({} as never))).rejects.toThrow('MCP App ui://x/v: html() did not return a string');
  });
});

describe('defineAppTool', () => {
  it('refuses an app that is not a ui:// URI or an app resource', () => {
    expect(() => defineAppTool({ ...tool, app: 'https://example.com/view' })).toThrow(ToolDefinitionError);
    expect(() => defineAppTool({ ...tool, app: { uri: 'test://plain', mimeType: 'text/plain' } })).toThrow(/ui:\/\//);
    expect(() => defineAppTool({ ...tool, app: { uri: 'ui://x/v', mimeType: 'text/html' } })).toThrow(/not an MCP App resource/);
    expect(() => defineAppTool({ ...tool, app: undefined as never })).toThrow(ToolDefinitionError);
  });

  it('refuses a visibility other than a non-empty list of "model"/"app"', () => {
    expect(() => defineAppTool({ ...tool, app: 'ui://x/v', visibility: [] })).toThrow(/visibility/);
    expect(() => defineAppTool({ ...tool, app: 'ui://x/v', visibility: ['agent' as never] })).toThrow(/visibility/);
  });

  it('keeps the tool’s own _meta and adds ui.resourceUri to it', () => {
    const t = defineAppTool({ ...tool, _meta: { 'example.com/x': 1, ui: { extra: true } }, app: 'ui://x/v' });
    expect(t._meta).toEqual({ 'example.com/x': 1, ui: { extra: true, resourceUri: 'ui://x/v' }, 'ui/resourceUri': 'ui://x/v' });
    expect('app' in t).toBe(false);
  });
});

describe('what a host reads from a listed tool', () => {
  it('finds the app in either spelling, and applies visibility with its default', async () => {
    const { appResourceUriOf, isCallableByApp, isVisibleToModel } = await import('../../../src/server/apps/visibility.js');
    expect(appResourceUriOf({ ui: { resourceUri: 'ui://a/v' } })).toBe('ui://a/v');
    expect(appResourceUriOf({ 'ui/resourceUri': 'ui://old/v' })).toBe('ui://old/v');
    expect(appResourceUriOf({ ui: 'x' })).toBeUndefined();
    expect(appResourceUriOf(undefined)).toBeUndefined();
    const appOnly = defineAppTool({ ...tool, app: 'ui://x/v', visibility: ['app'] })._meta;
    const modelOnly = defineAppTool({ ...tool, app: 'ui://x/v', visibility: ['model'] })._meta;
    const both = defineAppTool({ ...tool, app: 'ui://x/v' })._meta;
    expect([isVisibleToModel(appOnly), isCallableByApp(appOnly)]).toEqual([false, true]);
    expect([isVisibleToModel(modelOnly), isCallableByApp(modelOnly)]).toEqual([true, false]);
    expect([isVisibleToModel(both), isCallableByApp(both)]).toEqual([true, true]);
    expect(isCallableByApp({ ui: { visibility: [] } })).toBe(false);
  });
});
