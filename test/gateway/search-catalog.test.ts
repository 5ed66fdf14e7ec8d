/**
 * Search mode: tools/list shows only search_tools and call_tool; the composed catalogue is found by
 * name and description and called through the server's own dispatch, as the caller, so the
 * target's approval, visibility and validation still apply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client/client.js';
import type { ToolClientOptions } from '../../src/client/types.js';
import { mount, useSearchCatalog } from '../../src/gateway/index.js';
import { InProcessTransport } from '../../src/gateway/memory-transport.js';
import type { Caller } from '../../src/policy/auth/caller.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function catalogue() {
  const ran: string[] = [];
  const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  upstream.addTool(
    defineTool({
      name: 'read_file',
      description: 'Reads a text file from the workspace',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      handler: (args) => (ran.push(`read ${args.path}`), `contents of ${args.path}`),
    }),
    defineTool({
      name: 'delete_file',
      description: 'Deletes a file for good',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      annotations: { destructiveHint: true },
      handler: (args) => (ran.push(`delete ${args.path}`), 'deleted'),
    }),
    defineTool({ name: 'create_issue', description: 'Opens an issue in the tracker', inputSchema: { type: 'object' }, handler: () => 'opened' }),
  );
  const { server } = gatewayServer();
  // A local tool only admins may know of: search mode must neither find nor call it for others.
  server.addTool(
    defineTool({
      name: 'admin_purge_files',
      description: 'Purges every file',
      inputSchema: { type: 'object' },
      visibilityScopes: ['admin'],
      handler: () => (ran.push('purge'), 'purged'),
    }),
  );
  const handle = mount(server, 'ws', { server: upstream });
  closers.push(() => handle.close());
  useSearchCatalog(server);
  return { server, ran, ready: handle.ready };
}

async function clientOf(server: ToolServer, caller: Caller, options: ToolClientOptions = {}) {
  const transport = new InProcessTransport(server, () => {}, { transport: 'test', caller });
  const client = await ToolClient.connect({ transport }, { onWarning: () => {}, ...options });
  closers.push(() => client.close());
  return client;
}

const alice: Caller = { id: 'alice', scopes: [], claims: {}, method: 'transport' };

describe('search mode', () => {
  it('lists only search_tools and call_tool, and finds tools by name and description with their schemas', async () => {
    const { server, ready } = catalogue();
    await ready;
    const client = await clientOf(server, alice);
    expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['call_tool', 'search_tools']);
    const found = await client.callTool('search_tools', { query: 'file read' });
    const tools = (found.structuredContent as { tools: Array<{ name: string; inputSchema: unknown }> }).tools;
    expect(tools[0]).toMatchObject({ name: 'ws_read_file', inputSchema: { properties: { path: { type: 'string' } }, required: ['path'] } });
    expect(tools.map((t) => t.name)).toContain('ws_delete_file');
    expect(tools.map((t) => t.name)).not.toContain('ws_create_issue');
    const byDescription = await client.callTool('search_tools', { query: 'tracker' });
    expect((byDescription.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['ws_create_issue']);
  });

  it('calls the target through the pipeline: validation applies, and the result is the tool’s', async () => {
    const { server, ran, ready } = catalogue();
    await ready;
    const client = await clientOf(server, alice);
    const ok = await client.callTool('call_tool', { name: 'ws_read_file', arguments: { path: 'notes.txt' } });
    expect(ok.content).toEqual([{ type: 'text', text: 'contents of notes.txt' }]);
    const invalid = await client.callTool('call_tool', { name: 'ws_read_file', arguments: { path: 42 } });
    expect(invalid.isError).toBe(true);
    expect(ran).toEqual(['read notes.txt']);
  });

  it('a destructive target still waits for approval, asked of the caller of call_tool', async () => {
    const { server, ran, ready } = catalogue();
    await ready;
    const asked: string[] = [];
    let answer: 'accept' | 'decline' = 'decline';
    const client = await clientOf(server, alice, {
      onInputRequest: async (request) => {
        asked.push(request.method);
        return answer === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      },
    });
    const declined = await client.callTool('call_tool', { name: 'ws_delete_file', arguments: { path: 'a.txt' } });
    expect(declined.isError).toBe(true);
    expect(asked).toEqual(['elicitation/create']);
    expect(ran).toEqual([]);
    answer = 'accept';
    const accepted = await client.callTool('call_tool', { name: 'ws_delete_file', arguments: { path: 'a.txt' } });
    expect(accepted.isError).toBeFalsy();
    expect(ran).toEqual(['delete a.txt']);
  });

  it('a caller without elicitation cannot get a destructive target run', async () => {
    const { server, ran, ready } = catalogue();
    await ready;
    const client = await clientOf(server, alice);
    const result = await client.callTool('call_tool', { name: 'ws_delete_file', arguments: { path: 'a.txt' } });
    expect(result.isError).toBe(true);
    expect(ran).toEqual([]);
  });

  it('a tool the caller may not see is neither found nor called; one who may, may', async () => {
    const { server, ran, ready } = catalogue();
    await ready;
    const client = await clientOf(server, alice);
    const found = await client.callTool('search_tools', { query: 'purge' });
    expect((found.structuredContent as { tools: unknown[] }).tools).toEqual([]);
    const called = await client.callTool('call_tool', { name: 'admin_purge_files' });
    expect(called.isError).toBe(true);
    expect(JSON.stringify(called.content)).toMatch(/unknown tool|not found/i);
    expect(ran).toEqual([]);
    const admin = await clientOf(server, { id: 'root', scopes: ['admin'], claims: {}, method: 'transport' });
    const adminFound = await admin.callTool('search_tools', { query: 'purge' });
    expect((adminFound.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['admin_purge_files']);
    expect((await admin.callTool('call_tool', { name: 'admin_purge_files' })).content).toEqual([{ type: 'text', text: 'purged' }]);
  });
});
