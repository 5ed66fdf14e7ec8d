/**
 * The gateway in front of two real MCP servers nobody here wrote, mounted side by side over stdio:
 * @modelcontextprotocol/server-everything and @modelcontextprotocol/server-filesystem. The official
 * SDK clients (v2 in the modern era, v1 in the legacy era) list and call through it over HTTP.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mount, type MountHandle } from '../../src/gateway/index.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { createInMemoryPair } from '../../src/testing.js';
import { EVERYTHING, FILESYSTEM, filesystemRoot, gatewayServer } from './helpers.js';

const root = filesystemRoot();
const rootDir = realpathSync(root.dir);
const { server } = gatewayServer();
let http: HttpServerHandle;
let mounts: MountHandle[];

beforeAll(async () => {
  mounts = [mount(server, 'everything', { command: EVERYTHING }), mount(server, 'fs', { command: FILESYSTEM, args: [rootDir] })];
  await Promise.all(mounts.map((m) => m.ready));
  http = await serveHttp(server, { port: 0 });
}, 30_000);

afterAll(async () => {
  await http?.close();
  await Promise.all(mounts.map((m) => m.close()));
  root.remove();
});

const answerForm = async () => ({ action: 'accept' as const, content: { name: 'Ada Lovelace' } });

type AnyClient = {
  listTools(): Promise<{ tools: Array<{ name: string; description?: string }> }>;
  callTool(...args: any[]): Promise<any>;
  close(): Promise<void>;
};

async function exercise(client: AnyClient, progressArg: 1 | 2) {
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(['everything_echo', 'everything_get-sum', 'fs_read_text_file', 'fs_list_directory']));
  expect(names.every((n) => n.startsWith('everything_') || n.startsWith('fs_'))).toBe(true);

  const echo = await client.callTool({ name: 'everything_echo', arguments: { message: 'through the gateway' } });
  expect(echo.content).toEqual([{ type: 'text', text: 'Echo: through the gateway' }]);

  const read = await client.callTool({ name: 'fs_read_text_file', arguments: { path: join(rootDir, 'notes', 'hello.txt') } });
  expect(read.content[0].text).toBe('hello from the filesystem upstream');

  // The upstream's own refusal comes back as its isError result, not as a gateway failure.
  const outside = await client.callTool({ name: 'fs_read_text_file', arguments: { path: '/etc/passwd' } });
  expect(outside.isError).toBe(true);

  // Argument validation against the upstream's schema happens in the gateway, before the upstream is asked.
  const bad = await client.callTool({ name: 'everything_get-sum', arguments: { a: 'two', b: 3 } });
  expect(bad.isError).toBe(true);
  expect(bad.content[0].text).toContain('arguments.a');

  const seen: number[] = [];
  const options = { onprogress: (p: { progress: number }) => seen.push(p.progress), timeout: 15_000 };
  const args = { name: 'everything_trigger-long-running-operation', arguments: { duration: 1, steps: 3 } };
  const done = progressArg === 1 ? await client.callTool(args, options) : await client.callTool(args, undefined, options);
  expect(done.content[0].text).toContain('Long running operation completed');
  // The SDK clients may drop the last steps that share a read with the response (see test/interop/sdk-clients.test.ts).
  expect(seen.length).toBeGreaterThan(0);
  expect(seen).toEqual([1, 2, 3].slice(0, seen.length));

  // The upstream asks for a form mid-call; the gateway asks this client, and passes the answer back.
  const elicited = await client.callTool({ name: 'everything_trigger-elicitation-request', arguments: {} }, undefined, { timeout: 15_000 });
  expect(JSON.stringify(elicited.content)).toContain('Ada Lovelace');
}

describe('server-everything and server-filesystem behind the gateway', () => {
  it('@modelcontextprotocol/client 2.x, modern era over HTTP', async () => {
    const client = new ClientV2({ name: 'gw-modern', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: {} },
    } as never);
    client.setRequestHandler('elicitation/create', answerForm as never);
    await client.connect(new HttpV2(new URL(http.url)), { timeout: 10_000 });
    try {
      expect(client.getProtocolEra()).toBe('modern');
      await exercise(client as unknown as AnyClient, 1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('@modelcontextprotocol/sdk 1.x, legacy era over HTTP', async () => {
    const client = new ClientV1({ name: 'gw-legacy', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, answerForm);
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'sampled by the client' },
      model: 'test-model',
    }));
    await client.connect(new HttpV1(new URL(http.url)));
    try {
      await exercise(client as unknown as AnyClient, 2);
      // The upstream asks the gateway for a completion mid-call; the gateway asks this client's model.
      const sampled = await client.callTool({ name: 'everything_trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 20 } });
      expect(JSON.stringify(sampled.content)).toContain('sampled by the client');
      const prompts = await client.listPrompts();
      expect(prompts.prompts.map((p) => p.name)).toContain('everything_simple-prompt');
      const prompt = await client.getPrompt({ name: 'everything_simple-prompt' });
      expect(prompt.messages.length).toBeGreaterThan(0);
      const resources = await client.listResources();
      const doc = resources.resources.find((r) => r.uri.startsWith('everything+demo://resource/static/document/'));
      expect(doc).toBeDefined();
      const read = await client.readResource({ uri: doc!.uri });
      expect(read.contents[0].uri).toBe(doc!.uri);
      const templates = await client.listResourceTemplates();
      expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain('everything+demo://resource/dynamic/text/{resourceId}');
      const dynamic = await client.readResource({ uri: 'everything+demo://resource/dynamic/text/1' });
      expect(dynamic.contents[0].uri).toBe('everything+demo://resource/dynamic/text/1');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a client that cannot answer is not asked: the upstream gets an error answer and its own result comes back', async () => {
    const { client, close } = await createInMemoryPair(server);
    try {
      const result = await client.callTool('everything_trigger-elicitation-request', {});
      expect(result.isError).toBe(true);
      // The upstream's own result: it was answered with the error a client without elicitation answers
      // (the gateway's client takes only the caller's input capabilities for this call).
      expect(JSON.stringify(result.content)).toContain('did not declare the \\"elicitation\\" capability');
    } finally {
      await close();
    }
  }, 30_000);

  it('reports each upstream up, with its tools counted', () => {
    expect(mounts.map((m) => m.health())).toEqual([
      expect.objectContaining({ name: 'everything', state: 'up', restarts: 0 }),
      expect.objectContaining({ name: 'fs', state: 'up', restarts: 0 }),
    ]);
    expect(mounts[1].health().tools).toBeGreaterThan(5);
  });
});
