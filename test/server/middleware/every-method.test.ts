import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { definePrompt } from '../../../src/server/primitives/prompts/index.js';
import { defineResource, defineResourceTemplate } from '../../../src/server/primitives/resources/index.js';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool } from '../../../src/server/tool.js';
import { askNameTaskTool, WITH_TASKS_AND_ELICITATION } from '../../helpers/tasks.js';
import { tempDir } from '../../helpers/temp.js';
import { wire } from '../../helpers/wire.js';

/**
 * A middleware registered once (server.use) sees every method a client can send, in both eras,
 * once per request (issue 31): the list methods, discovery, the lifecycle, subscriptions and
 * tasks included. Where it runs for each is docs/middleware.md's diagram; here, that it runs.
 */
function observed() {
  const seen: string[] = [];
  const server = new ToolServer({
    audit: false,
    tools: [
      defineTool({ name: 'echo', description: 'd', inputSchema: { type: 'object' }, handler: () => 'ok' }),
      defineTool({ name: 'later', description: 'd', inputSchema: { type: 'object' }, task: 'always', handler: () => 'done' }),
      askNameTaskTool(),
    ],
    prompts: [definePrompt({ name: 'hello', get: () => 'hi' })],
    resources: [defineResource({ uri: 'docs://a', name: 'a', read: () => 'A' })],
    resourceTemplates: [defineResourceTemplate({ uriTemplate: 'db://{table}', name: 'table', complete: { table: () => ['users'] }, read: () => 'T' })],
    tasks: { store: join(tempDir('tw-every-method-'), 'tasks.db'), pollIntervalMs: 20 },
  });
  server.use(async (ctx, next) => {
    seen.push(`${ctx.era} ${ctx.method}`);
    return next();
  });
  return { server, seen };
}

describe('a middleware registered once', () => {
  it('sees every modern method', async () => {
    const { server, seen } = observed();
    const w = wire(server);
    const meta = WITH_TASKS_AND_ELICITATION;
    await w.modern('server/discover');
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) await w.modern(method);
    await w.modern('tools/call', { name: 'echo', arguments: {} });
    await w.modern('prompts/get', { name: 'hello' });
    await w.modern('resources/read', { uri: 'docs://a' });
    await w.modern('completion/complete', { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: 'u' } });
    const { taskId } = (await w.modern('tools/call', { name: 'ask', arguments: {} }, meta)).result;
    await w.modern('tasks/get', { taskId }, meta);
    await w.modern('tasks/update', { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } }, meta);
    await w.modern('tasks/cancel', { taskId }, meta);
    const listening = w.modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    await expect.poll(() => seen.includes('modern subscriptions/listen')).toBe(true);
    server.close();
    await listening;
    expect(seen).toEqual(
      [
        'server/discover',
        'tools/list',
        'prompts/list',
        'resources/list',
        'resources/templates/list',
        'tools/call',
        'prompts/get',
        'resources/read',
        'completion/complete',
        'tools/call',
        'tasks/get',
        'tasks/update',
        'tasks/cancel',
        'subscriptions/listen',
      ].map((method) => `modern ${method}`),
    );
  });

  it('sees every legacy method, the handshake included', async () => {
    const { server, seen } = observed();
    const w = wire(server);
    await w.initialize('2025-11-25');
    await w.request('ping');
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) await w.request(method);
    await w.request('tools/call', { name: 'echo', arguments: {} });
    await w.request('prompts/get', { name: 'hello' });
    await w.request('resources/read', { uri: 'docs://a' });
    await w.request('resources/subscribe', { uri: 'docs://a' });
    await w.request('resources/unsubscribe', { uri: 'docs://a' });
    await w.request('completion/complete', { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: 'u' } });
    await w.request('logging/setLevel', { level: 'info' });
    const { taskId } = (await w.request('tools/call', { name: 'later', arguments: {}, task: {} })).result.task;
    await w.request('tasks/get', { taskId });
    await w.request('tasks/result', { taskId });
    await w.request('tasks/list');
    await w.request('tasks/cancel', { taskId });
    server.close();
    expect(seen).toEqual(
      [
        'initialize',
        'ping',
        'tools/list',
        'prompts/list',
        'resources/list',
        'resources/templates/list',
        'tools/call',
        'prompts/get',
        'resources/read',
        'resources/subscribe',
        'resources/unsubscribe',
        'completion/complete',
        'logging/setLevel',
        'tools/call',
        'tasks/get',
        'tasks/result',
        'tasks/list',
        'tasks/cancel',
      ].map((method) => `legacy ${method}`),
    );
  });
});
