/**
 * Audit records and spans name the upstream: every call, prompt get, resource read and completion
 * relayed to an upstream leaves a record with `upstream: "<name>"`, and its SERVER span carries
 * `toolwright.upstream`; the gateway's own tools leave neither. The upstream is a real ToolServer
 * in process, reached through toolwright's client (the same relay as stdio and HTTP).
 */
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { MemoryAuditSink } from '../../src/audit/memory-sink.js';
import { mount } from '../../src/gateway/index.js';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { UPSTREAM_ATTRIBUTE } from '../../src/tracing/server.js';
import { registerOtel } from '../helpers/otel.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

function upstreamServer() {
  const server = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  server.addTool(defineTool({ name: 'add', description: 'adds', inputSchema: { type: 'object', properties: { a: { type: 'number' } } }, handler: () => '3' }));
  server.prompts.add(
    definePrompt({
      name: 'greet',
      arguments: [{ name: 'who' }],
      complete: { who: (v) => ['alice', 'bob'].filter((n) => n.startsWith(v)) },
      get: ({ who }) => `hi ${who}`,
    }),
  );
  server.resources.add({ uri: 'notes://today', name: 'today', read: () => 'buy milk' });
  return server;
}

async function gatewayWithAudit() {
  const audit = new MemoryAuditSink();
  const { server } = gatewayServer({ audit });
  server.addTool(defineTool({ name: 'local', description: 'mine', inputSchema: { type: 'object' }, handler: () => 'mine' }));
  const m = mount(server, 'calc', { server: upstreamServer() });
  await m.ready;
  await expect.poll(() => server.resources.get('calc+notes://today') !== undefined && server.prompts.has('calc_greet')).toBe(true);
  const pair = await createInMemoryPair(server);
  return { server, audit, m, pair };
}

describe('audit records name the upstream', () => {
  it('a relayed call, prompt, read and completion each name it; a local tool names none', async () => {
    const { audit, m, pair } = await gatewayWithAudit();
    try {
      await pair.client.callTool('calc_add', { a: 1 });
      await pair.client.callTool('local', {});
      await pair.client.getPrompt('calc_greet', { who: 'ann' });
      await pair.client.readResource('calc+notes://today');
      await pair.client.complete({ type: 'ref/prompt', name: 'calc_greet' }, { name: 'who', value: 'a' });
      const byTarget = Object.fromEntries(audit.records.map((r) => [`${r.method ?? 'tools/call'} ${r.tool}`, r.upstream]));
      expect(byTarget).toEqual({
        'tools/call calc_add': 'calc',
        'tools/call local': undefined,
        'prompts/get calc_greet': 'calc',
        'resources/read calc+notes://today': 'calc',
        'completion/complete prompt calc_greet': 'calc',
      });
    } finally {
      await pair.close();
      await m.close();
    }
  });

  it('a call refused before it reaches the upstream (bad arguments) still names the upstream it was for', async () => {
    const { audit, m, pair } = await gatewayWithAudit();
    try {
      const result = await pair.client.callTool('calc_add', { a: 'not a number' });
      expect(result.isError).toBe(true);
      expect(audit.records.at(-1)).toMatchObject({ tool: 'calc_add', status: 'invalid_arguments', upstream: 'calc' });
    } finally {
      await pair.close();
      await m.close();
    }
  });
});

describe('spans carry the upstream', () => {
  it('the SERVER span of a relayed call has toolwright.upstream; a local call has none', async () => {
    const otel = registerOtel();
    const { m, pair } = await gatewayWithAudit();
    try {
      await pair.client.callTool('calc_add', { a: 1 });
      await pair.client.callTool('local', {});
      await pair.client.readResource('calc+notes://today');
      // The gateway's SERVER spans (the test client's CLIENT spans share their names; the upstream's are named for its own tool).
      const served = (name: string) => otel.spans().filter((s) => s.kind === SpanKind.SERVER && s.name === name);
      expect(served('tools/call calc_add').map((s) => s.attributes[UPSTREAM_ATTRIBUTE])).toEqual(['calc']);
      expect(served('tools/call local').map((s) => s.attributes[UPSTREAM_ATTRIBUTE])).toEqual([undefined]);
      const reads = served('resources/read').filter((s) => s.attributes['mcp.resource.uri'] === 'calc+notes://today');
      expect(reads.map((s) => s.attributes[UPSTREAM_ATTRIBUTE])).toEqual(['calc']);
    } finally {
      await pair.close();
      await m.close();
    }
  });
});
