import { once } from 'node:events';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../../../src/gateway/openapi/index.js';
import { extrasDocument } from './extras.js';
import { FIXTURES, serveUpstream, TempDocs, textOf, type Served } from './helpers.js';
import { PetstoreApi, SECRETS } from './petstore-api.js';

/** Bounded in size and time: a 10 MiB answer is cut at the cap, an API that never answers is an isError result. */
let api: PetstoreApi;
let served: Served;
/** The same upstream with a short timeout, for the operation that never answers. */
let impatient: Served;
const docs = new TempDocs();

beforeAll(async () => {
  api = await new PetstoreApi().start();
  const name = docs.write('extras.yaml', extrasDocument());
  served = await serveUpstream({ openapi: name, baseUrl: `${api.url}/v3`, credentials: { api_key: SECRETS.apiKey }, maxResponseBytes: 256 * 1024 }, docs.dir);
  impatient = await serveUpstream({ openapi: name, baseUrl: `${api.url}/v3`, include: { operations: ['slow'] }, timeoutMs: 400 }, docs.dir);
});

afterAll(async () => {
  await served?.close();
  await impatient?.close();
  await api?.close();
  docs.cleanup();
});

describe('response size', () => {
  it('cuts a 10 MiB text answer at maxResponseBytes and says so', async () => {
    const result = await served.client.callTool('bigText', {});
    expect(result.isError, textOf(result).slice(0, 300)).toBeFalsy();
    const text = textOf(result);
    expect(text.length).toBeLessThan(256 * 1024 + 100);
    expect(text.startsWith('{"data":"xxx')).toBe(true);
    expect(text.endsWith('(the response was cut at 262144 bytes)')).toBe(true);
  });

  it('answers isError for a 10 MiB JSON answer its outputSchema cannot be checked against', async () => {
    const result = await served.client.callTool('bigJson', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'HTTP 200 OK from GET /big, but the response is larger than 262144 bytes and was cut, so it cannot be read as JSON. Ask for less (a filter or a page size).',
    );
  });
});

describe('time', () => {
  it('gives an isError result naming the operation when the API does not answer within timeoutMs', async () => {
    const result = await impatient.client.callTool('slow', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`GET /slow on ${new URL(api.url).host} did not answer within 0.4 s; the request was stopped.`);
  });

  it('cancels the request when the client cancels the call', async () => {
    const before = api.to('v3', 'slow').length;
    const controller = new AbortController();
    const call = served.client.callTool('slow', {}, { signal: controller.signal });
    while (api.to('v3', 'slow').length === before) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(call).rejects.toThrow();
  });

  it('answers isError naming the host when nothing listens there', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as { port: number };
    closed.close();
    const down = await serveUpstream({ openapi: 'petstore.yaml', baseUrl: `http://127.0.0.1:${port}/v3`, include: { operations: ['getUserByName'] } });
    try {
      const result = await down.client.callTool('getUserByName', { username: 'alice' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `GET /user/{username} failed: 127.0.0.1:${port} refused the connection (nothing listens on that port). Check the URL's port.`,
      );
    } finally {
      await down.close();
    }
  });
});

describe('loading the document', () => {
  it('reads it from a URL, with the URL checks of outbound requests', async () => {
    const name = 'petstore.yaml';
    const text = (await import('node:fs')).readFileSync(`${FIXTURES}/${name}`, 'utf8');
    const host = createServer((req, res) => {
      if (req.url === '/openapi.yaml') res.end(text);
      else {
        res.statusCode = 404;
        res.end();
      }
    });
    host.listen(0, '127.0.0.1');
    await once(host, 'listening');
    const origin = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
    try {
      const { tools } = await openApiTools({ openapi: `${origin}/openapi.yaml`, baseUrl: `${api.url}/v3` }, { cwd: '/nonexistent' });
      expect(tools).toHaveLength(18);
      await expect(openApiTools({ openapi: `${origin}/missing.yaml`, baseUrl: api.url }, { cwd: '/' })).rejects.toThrow(
        `OpenAPI document ${origin}/missing.yaml: the server answered HTTP 404.`,
      );
    } finally {
      host.close();
    }
  });

  it.each([
    ['http://169.254.169.254/openapi.json', 'a cloud metadata service address'],
    ['http://user:pw@127.0.0.1/openapi.json', 'URLs with credentials'],
  ])('refuses %s', async (url, why) => {
    const failure = await openApiTools({ openapi: url, baseUrl: api.url }, { cwd: '/' }).catch((err: Error) => err);
    expect((failure as Error).message).toContain(why);
    expect((failure as Error).message).not.toContain(':pw@');
  });

  it.each([
    ['missing.yaml', undefined, 'OpenAPI document missing.yaml: no such file (relative paths are read from the working directory).'],
    [
      'swagger.yaml',
      'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n',
      'OpenAPI document swagger.yaml: Swagger 2.0 is not supported; convert it to OpenAPI 3',
    ],
    ['broken.yaml', 'openapi: 3.0.0\npaths: [unclosed\n', 'OpenAPI document broken.yaml: not valid JSON or YAML'],
    ['four.yaml', 'openapi: 4.0.0\npaths: {}\n', '"openapi" must be a 3.0.x or 3.1.x version string'],
    ['paths.json', '{"openapi":"3.1.0","paths":[]}', '"paths" must be an object'],
  ])('refuses %s with a clear start-up error, never an absolute path', async (name, content, message) => {
    if (content !== undefined) docs.write(name, content);
    const failure = await openApiTools({ openapi: name, baseUrl: api.url }, { cwd: docs.dir }).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain(message);
    expect((failure as Error).message).not.toContain(docs.dir);
  });

  it('refuses a base URL that carries credentials or a query, and headers the request owns', async () => {
    await expect(openApiTools({ openapi: 'petstore.yaml', baseUrl: 'http://u:p@127.0.0.1/v3' }, { cwd: FIXTURES })).rejects.toThrow(
      'baseUrl must not carry credentials',
    );
    await expect(openApiTools({ openapi: 'petstore.yaml', baseUrl: 'http://127.0.0.1/v3?x=1' }, { cwd: FIXTURES })).rejects.toThrow(
      'baseUrl must not have a query',
    );
  });
});
