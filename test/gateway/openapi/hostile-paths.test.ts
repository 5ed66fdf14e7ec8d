import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { document, serveUpstream, TempDocs, textOf, type Served } from './helpers.js';
import { PetstoreApi } from './petstore-api.js';

/**
 * Path parameters are the model's text put into a URL: whatever it holds, the request must
 * reach the operation's own route. Asserted on what the local API received.
 */
let api: PetstoreApi;
let served: Served;

beforeAll(async () => {
  api = await new PetstoreApi().start();
  served = await serveUpstream({ openapi: 'petstore.yaml', baseUrl: `${api.url}/v3` });
});

afterAll(async () => {
  await served?.close();
  await api?.close();
});

const HOSTILE = [
  '../admin',
  '..%2Fadmin',
  '..%2fadmin',
  'a/../../admin',
  '?x=1',
  'alice?admin=true',
  '#frag',
  'alice#/admin',
  '%2e%2e',
  '%2E%2E%2Fadmin',
  '...',
  '..\\admin',
  '\\\\other.example/admin',
  '//other.example/admin',
  'http://other.example/admin',
  'a b\tc\r\nX-Injected: 1',
  'nul\u0000byte',
  'Zoë 🐾 名前',
  '%',
  '%%32%65',
  ';matrix=1',
  '@other.example',
];

describe('hostile path parameters never leave their route', () => {
  it.each(HOSTILE)('%j reaches /v3/user/{username} as exactly that one segment', async (value) => {
    const before = api.received.length;
    const result = await served.client.callTool('getUserByName', { username: value });
    const sent = api.received.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].method).toBe('GET');
    expect(sent[0].segments).toEqual(['v3', 'user', value]);
    expect(sent[0].target.startsWith('/v3/user/')).toBe(true);
    expect(sent[0].target).not.toContain('?');
    expect(sent[0].target).not.toContain('#');
    expect(sent[0].headers['x-injected']).toBeUndefined();
    // The API answers for that user (it knows one literally called "../admin").
    if (value === '../admin') expect(result.structuredContent).toMatchObject({ username: '../admin' });
    else expect(textOf(result)).toContain('User not found');
    expect(api.to('v3', 'admin')).toHaveLength(0);
  });

  it.each(['..', '.'])('%j, a whole segment of dots, is refused before any request', async (value) => {
    const before = api.received.length;
    const result = await served.client.callTool('getUserByName', { username: value });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('"." or ".."');
    expect(api.received.length).toBe(before);
  });

  it('refuses an empty path parameter by its schema', async () => {
    const before = api.received.length;
    const result = await served.client.callTool('getUserByName', { username: '' });
    expect(result.isError).toBe(true);
    expect(api.received.length).toBe(before);
  });

  it('keeps a hostile query value inside its one parameter', async () => {
    await served.client.callTool('loginUser', { username: 'alice&password=never-shown#x', password: 'x y' });
    const got = api.received.at(-1);
    expect(got?.query.getAll('username')).toEqual(['alice&password=never-shown#x']);
    expect(got?.query.getAll('password')).toEqual(['x y']);
  });

  it('refuses a header parameter with a line break', async () => {
    const before = api.received.length;
    const result = await served.client.callTool('deletePet', { petId: 1, 'X-Reason': 'ok\r\nX-Injected: 1' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('line breaks');
    expect(api.received.length).toBe(before);
  });
});

describe("a document's own paths stay under baseUrl", () => {
  const docs = new TempDocs();
  afterAll(() => docs.cleanup());

  it('refuses an operation whose path climbs out of the base path, without sending it', async () => {
    const name = docs.write(
      'climb.yaml',
      document({
        '/../admin': { get: { operationId: 'climb', responses: { '200': { description: 'ok' } } } },
        '/%2e%2e/admin': { get: { operationId: 'climbEncoded', responses: { '200': { description: 'ok' } } } },
        '/user/{name}/../../admin': {
          get: {
            operationId: 'climbAfter',
            parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      }),
    );
    const climbing = await serveUpstream({ openapi: name, baseUrl: `${api.url}/v3` }, docs.dir);
    try {
      const before = api.received.length;
      for (const [tool, args] of [
        ['climb', {}],
        ['climbAfter', { name: 'x' }],
      ] as const) {
        const result = await climbing.client.callTool(tool, args);
        expect(result.isError, tool).toBe(true);
      }
      expect(api.received.length).toBe(before);
      // A "%" the document wrote is text too: the request stays under /v3, on a route that does not exist.
      await climbing.client.callTool('climbEncoded', {});
      expect(api.received.at(-1)?.segments).toEqual(['v3', '%2e%2e', 'admin']);
      expect(api.to('v3', 'admin')).toHaveLength(0);
    } finally {
      await climbing.close();
    }
  });
});

describe('hostile names in the document', () => {
  const docs = new TempDocs();
  afterAll(() => docs.cleanup());

  it('keeps "__proto__" and "constructor" as plain names, in the schema and on the wire', async () => {
    const name = docs.write(
      'names.json',
      JSON.stringify(
        document({
          '/user': {
            post: {
              operationId: 'createUser',
              parameters: [{ name: '__proto__', in: 'header', schema: { type: 'string' } }],
              requestBody: {
                required: true,
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { __proto__: { type: 'string' }, constructor: { type: 'string' }, username: { type: 'string' } } },
                  },
                },
              },
              responses: { '200': { description: 'ok' } },
            },
          },
        }),
      ).replace('"properties":{', '"properties":{"__proto__":{"type":"string"},'),
    );
    const named = await serveUpstream({ openapi: name, baseUrl: `${api.url}/v3`, headers: JSON.parse('{"__proto__":"configured"}') }, docs.dir);
    try {
      const tool = (await named.client.listTools()).find((t) => t.name === 'createUser');
      const properties = (tool?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
      expect(Object.keys(properties)).toEqual(['__proto___header', '__proto___body', 'constructor', 'username']);
      const result = await named.client.callTool('createUser', { __proto___header: 'h', __proto___body: 'p', constructor: 'c', username: 'eve' });
      expect(result.isError, textOf(result)).toBeFalsy();
      const body = JSON.parse(api.received.at(-1)?.body ?? '{}');
      expect(Object.hasOwn(body, '__proto__')).toBe(true);
      expect(Object.getOwnPropertyDescriptor(body, '__proto__')?.value).toBe('p');
      expect(body.constructor).toBe('c');
      // The operator's header wins over the model's argument of the same name.
      const raw = api.received.at(-1)?.rawHeaders ?? [];
      expect(raw.filter((_, i) => i % 2 === 0 && raw[i] === '__proto__').length).toBe(1);
      expect(raw[raw.indexOf('__proto__') + 1]).toBe('configured');
    } finally {
      await named.close();
    }
  });
});
