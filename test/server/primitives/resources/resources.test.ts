import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../../src/server/server.js';
import { defineResource, defineResourceTemplate, ResourceDefinitionError } from '../../../../src/server/primitives/resources/index.js';
import { ToolError } from '../../../../src/server/tool.js';
import { memoryLogger, wire } from '../../../helpers/wire.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const tick = () => new Promise((r) => setImmediate(r));

function server(options: { pageSize?: number; logger?: any } = {}) {
  return new ToolServer({
    logger: options.logger ?? memoryLogger().logger,
    audit: false,
    pageSize: options.pageSize,
    resources: [
      defineResource({
        uri: 'test://static-text',
        name: 'static-text',
        mimeType: 'text/plain',
        read: () => 'This is the content of the static text resource.',
      }),
      defineResource({
        uri: 'test://static-binary',
        name: 'static-binary',
        mimeType: 'image/png',
        annotations: { audience: ['user'], priority: 0.5 },
        read: () => PNG,
      }),
      defineResource({ uri: 'test://private', name: 'private', cacheScope: 'private', ttlMs: 1000, read: (ctx) => `for ${ctx.principal ?? 'anyone'}` }),
    ],
    resourceTemplates: [
      defineResourceTemplate({
        uriTemplate: 'test://template/{id}/data',
        name: 'template-data',
        mimeType: 'application/json',
        variables: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]+$' } }, required: ['id'] },
        read: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      }),
      defineResourceTemplate({
        uriTemplate: 'test://files/{+path}',
        name: 'files',
        read: (_uri, { path }) => {
          if (path === 'missing') return undefined;
          if (path === 'refused') throw new ToolError('that file is not for you');
          if (path === 'broken') throw new Error('disk on fire at /secret/place');
          if (path === 'invalid') return { text: 'x', blob: 'eA==' } as any;
          return [{ text: `file ${path}` }, { uri: `test://files/${path}.meta`, mimeType: 'application/json', text: '{}' }];
        },
      }),
    ],
  });
}

describe('resources/list and resources/templates/list', () => {
  it('lists fixed resources with their metadata and modern cache hints', async () => {
    const res = await wire(server()).modern('resources/list');
    expect(res.result).toMatchObject({ resultType: 'complete', ttlMs: 300000, cacheScope: 'public' });
    expect(res.result.resources.map((r: any) => r.uri)).toEqual(['test://static-text', 'test://static-binary', 'test://private']);
    expect(res.result.resources[1]).toEqual({
      uri: 'test://static-binary',
      name: 'static-binary',
      mimeType: 'image/png',
      annotations: { audience: ['user'], priority: 0.5 },
    });
  });

  it('pages both lists with opaque cursors, and refuses a forged cursor with -32602', async () => {
    const w = wire(server({ pageSize: 2 }));
    const first = await w.modern('resources/list');
    expect(first.result.resources).toHaveLength(2);
    const second = await w.modern('resources/list', { cursor: first.result.nextCursor });
    expect(second.result.resources.map((r: any) => r.uri)).toEqual(['test://private']);
    expect(second.result.nextCursor).toBeUndefined();
    expect((await w.modern('resources/templates/list', { cursor: 'x' })).error.code).toBe(-32602);
  });

  it('lists templates as registered, in both eras (legacy without cache hints)', async () => {
    const w = wire(server());
    const modern = await w.modern('resources/templates/list');
    expect(modern.result.resourceTemplates).toEqual([
      { uriTemplate: 'test://template/{id}/data', name: 'template-data', mimeType: 'application/json' },
      { uriTemplate: 'test://files/{+path}', name: 'files' },
    ]);
    await w.initialize();
    const legacy = await w.request('resources/templates/list', {});
    expect(legacy.result).toEqual({ resourceTemplates: modern.result.resourceTemplates });
  });
});

describe('resources/read', () => {
  it("reads text and binary resources, with the resource's cache hints", async () => {
    const w = wire(server());
    const text = await w.modern('resources/read', { uri: 'test://static-text' });
    expect(text.result).toMatchObject({
      resultType: 'complete',
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
      ttlMs: 300000,
      cacheScope: 'public',
    });
    const binary = await w.modern('resources/read', { uri: 'test://static-binary' });
    expect(binary.result.contents).toEqual([{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG.toString('base64') }]);
    const priv = await w.modern('resources/read', { uri: 'test://private' });
    expect(priv.result).toMatchObject({ ttlMs: 1000, cacheScope: 'private' });
  });

  it('reads through a template, with the variables checked against its schema', async () => {
    const w = wire(server());
    const res = await w.modern('resources/read', { uri: 'test://template/123/data' });
    expect(JSON.parse(res.result.contents[0].text)).toEqual({ id: '123', templateTest: true, data: 'Data for ID: 123' });
    expect(res.result.contents[0]).toMatchObject({ uri: 'test://template/123/data', mimeType: 'application/json' });
    const bad = await w.modern('resources/read', { uri: 'test://template/abc/data' });
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toMatch(/variables\.id/);
  });

  it('returns several contents for one read, each with its own uri', async () => {
    const res = await wire(server()).modern('resources/read', { uri: 'test://files/dir/a.txt' });
    expect(res.result.contents).toEqual([
      { uri: 'test://files/dir/a.txt', text: 'file dir/a.txt' },
      { uri: 'test://files/dir/a.txt.meta', mimeType: 'application/json', text: '{}' },
    ]);
  });

  it('answers a resource that does not exist with -32602 and the uri in data, never an empty contents', async () => {
    const w = wire(server());
    for (const uri of ['test://nowhere', 'test://files/missing', 'test://template/1/other']) {
      const res = await w.modern('resources/read', { uri });
      expect(res.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri } });
    }
  });

  it('passes a ToolError on as -32602, and hides other failures behind a correlation id', async () => {
    const { logger, records } = memoryLogger();
    const w = wire(server({ logger }));
    expect((await w.modern('resources/read', { uri: 'test://files/refused' })).error).toEqual({ code: -32602, message: 'that file is not for you' });
    const broken = await w.modern('resources/read', { uri: 'test://files/broken' });
    expect(broken.error.code).toBe(-32603);
    expect(broken.error.message).not.toMatch(/secret|fire/);
    const id = /correlation id ([0-9a-f-]+)/.exec(broken.error.message)![1];
    expect(records.some((r) => r.correlationId === id)).toBe(true);
    const invalid = await w.modern('resources/read', { uri: 'test://files/invalid' });
    expect(invalid.error.code).toBe(-32603);
  });

  it('refuses a malformed or oversized uri with -32602 before matching', async () => {
    const w = wire(server());
    expect((await w.modern('resources/read', {})).error.code).toBe(-32602);
    expect((await w.modern('resources/read', { uri: 42 })).error.code).toBe(-32602);
    expect((await w.modern('resources/read', { uri: `test://files/${'a'.repeat(9000)}` })).error.code).toBe(-32602);
  });

  it('reads in the legacy era the same way, as a plain result', async () => {
    const w = wire(server());
    await w.initialize();
    const res = await w.request('resources/read', { uri: 'test://static-text' });
    expect(res.result).toEqual({ contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] });
  });

  it('keeps serving the large results tools stored beside the registered resources', async () => {
    const s = server();
    const stored = await s.results.put({ mimeType: 'text/plain', text: 'big' }, undefined, 'big.txt');
    const res = await wire(s).modern('resources/read', { uri: stored.uri });
    expect(res.result.contents).toEqual([{ uri: stored.uri, mimeType: 'text/plain', text: 'big' }]);
    expect(res.result.cacheScope).toBe('private');
  });
});

describe('registration', () => {
  it('refuses invalid resources and templates at registration, naming the problem', () => {
    const s = server();
    const bad = [
      () => s.resources.add({ uri: 'not a uri', name: 'x', read: () => '' }),
      () => s.resources.add({ uri: 'test://static-text', name: 'dup', read: () => '' }),
      () => s.resources.add({ uri: 'toolwright://results/x', name: 'x', read: () => '' }),
      () => s.resources.add({ uri: 'test://x', name: '', read: () => '' }),
      () => s.resources.add({ uri: 'test://x', name: 'x', mimeType: 'text', read: () => '' }),
      () => s.resources.add({ uri: 'test://x', name: 'x', annotations: { priority: 2 }, read: () => '' }),
      () => s.resources.addTemplate({ uriTemplate: 'test://{a', name: 'x', read: () => '' }),
      () => s.resources.addTemplate({ uriTemplate: 'test://{a}', name: 'x', complete: { b: () => [] }, read: () => '' }),
      () => s.resources.addTemplate({ uriTemplate: 'test://{a}', name: 'x', variables: { type: 'string' }, read: () => '' }),
    ];
    for (const add of bad) expect(add).toThrow(ResourceDefinitionError);
    expect(s.resources.list()).toHaveLength(3);
  });
});

describe('change notifications', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

  it('modern: a listen stream acknowledges the URIs it will watch, then hears updates of those only, and list changes', async () => {
    const s = server();
    const w = wire(s);
    w.send({
      jsonrpc: '2.0',
      id: 'sub',
      method: 'subscriptions/listen',
      params: { _meta: meta, notifications: { resourcesListChanged: true, resourceSubscriptions: ['test://static-text', 42] } },
    });
    expect(w.written[0].params.notifications).toEqual({ resourcesListChanged: true, resourceSubscriptions: ['test://static-text'] });
    s.resources.updated('test://static-text');
    s.resources.updated('test://static-binary');
    s.resources.add({ uri: 'test://new', name: 'new', read: () => 'n' });
    await tick();
    expect(w.written.slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' } } },
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' }, uri: 'test://static-text' },
      },
    ]);
  });

  it('legacy: resources/subscribe and unsubscribe decide which updates the session hears', async () => {
    const s = server();
    const w = wire(s);
    await w.initialize();
    expect((await w.request('resources/subscribe', { uri: 'test://static-text' })).result).toEqual({});
    s.resources.updated('test://static-text');
    s.resources.updated('test://static-binary');
    await tick();
    expect(w.written.filter((m) => m.method === 'notifications/resources/updated')).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://static-text' } },
    ]);
    expect((await w.request('resources/unsubscribe', { uri: 'test://static-text' })).result).toEqual({});
    s.resources.updated('test://static-text');
    await tick();
    expect(w.written.filter((m) => m.method === 'notifications/resources/updated')).toHaveLength(1);
    expect((await w.request('resources/subscribe', {})).error.code).toBe(-32602);
  });

  it('legacy: a session watches a bounded number of URIs', async () => {
    const w = wire(server());
    await w.initialize();
    for (let i = 0; i < 256; i++) w.send({ jsonrpc: '2.0', id: `s${i}`, method: 'resources/subscribe', params: { uri: `test://r/${i}` } });
    const over = await w.request('resources/subscribe', { uri: 'test://r/one-more' });
    expect(over.error.code).toBe(-32602);
    expect((await w.request('resources/subscribe', { uri: 'test://r/0' })).result).toEqual({});
  });
});
