/**
 * Completion relayed with the upstream's own names, a legacy upstream's roots/list outside any
 * call answered with the roots configured for it (none by default), and the resource
 * subscriptions a mount took upstream given back when it is unmounted.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/validate.js';
import { mount } from '../../src/gateway/index.js';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { configProblems } from '../helpers/config.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

const SCRIPTED = resolve('test/gateway/fixtures/scripted-upstream.mjs');
const dir = mkdtempSync(join(tmpdir(), 'tw-gateway-roots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`${what}: not within 10 s`);
}

function upstreamServer() {
  const asked: Array<{ ref: unknown; argument: unknown; context: unknown }> = [];
  const listens: unknown[] = [];
  const server = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  server.addTool(defineTool({ name: 'noop', description: 'noop', inputSchema: { type: 'object' }, handler: () => 'ok' }));
  const cities = ['oslo', 'osaka', 'paris'];
  server.prompts.add(
    definePrompt({
      name: 'trip',
      arguments: [{ name: 'city' }, { name: 'days' }],
      complete: { city: (v) => cities.filter((c) => c.startsWith(v)) },
      get: () => 'go',
    }),
  );
  server.resources.addTemplate({
    uriTemplate: 'weather://{city}/{day}',
    name: 'weather',
    complete: { day: (v, { arguments: chosen }) => [`${chosen.city ?? '?'}-${v}day`] },
    read: () => 'sunny',
  });
  server.resources.add({ uri: 'notes://today', name: 'today', read: () => 'buy milk' });
  server.use('completion/complete', (ctx, next) => {
    asked.push({ ref: ctx.params.ref, argument: ctx.params.argument, context: ctx.params.context });
    return next();
  });
  server.use('subscriptions/listen', (ctx, next) => {
    listens.push((ctx.params.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions ?? []);
    return next();
  });
  server.use('resources/unsubscribe', (ctx, next) => {
    listens.push(`unsubscribe ${String(ctx.params.uri)}`);
    return next();
  });
  return { server, asked, listens };
}

describe('completion through the gateway', () => {
  it("completes a prompt's argument and a template's variable by asking the upstream with its own names", async () => {
    const { server } = gatewayServer();
    const up = upstreamServer();
    const m = mount(server, 'travel', { server: up.server });
    await m.ready;
    await until(() => server.prompts.has('travel_trip') && server.resources.getTemplate('travel+weather://{city}/{day}') !== undefined, 'listed');
    const pair = await createInMemoryPair(server);
    try {
      expect((await pair.client.complete({ type: 'ref/prompt', name: 'travel_trip' }, { name: 'city', value: 'os' })).values).toEqual(['oslo', 'osaka']);
      const day = await pair.client.complete({ type: 'ref/resource', uri: 'travel+weather://{city}/{day}' }, { name: 'day', value: 'mon' }, { city: 'oslo' });
      expect(day.values).toEqual(['oslo-monday']);
      expect(up.asked).toEqual([
        { ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'city', value: 'os' }, context: undefined },
        { ref: { type: 'ref/resource', uri: 'weather://{city}/{day}' }, argument: { name: 'day', value: 'mon' }, context: { arguments: { city: 'oslo' } } },
      ]);
      // An argument the upstream has no completer for: its answer (none) passes through.
      expect((await pair.client.complete({ type: 'ref/prompt', name: 'travel_trip' }, { name: 'days', value: '3' })).values).toEqual([]);
    } finally {
      await pair.close();
      await m.close();
    }
  });
});

describe('unmounting', () => {
  it('gives back the resource subscriptions it took upstream', async () => {
    const { server } = gatewayServer();
    const up = upstreamServer();
    const m = mount(server, 'notes', { server: up.server });
    await m.ready;
    await until(() => server.resources.get('notes+notes://today') !== undefined, 'listed');
    const pair = await createInMemoryPair(server);
    try {
      await pair.client.subscribeResource('notes+notes://today');
      await until(() => up.listens.some((l) => Array.isArray(l) && l.includes('notes://today')), 'subscribed upstream');
      const before = up.listens.length;
      await m.close();
      // After the close: the upstream was asked again without it (modern) or told resources/unsubscribe (legacy).
      const after = up.listens.slice(before);
      expect(after.some((l) => (Array.isArray(l) && !l.includes('notes://today')) || l === 'unsubscribe notes://today')).toBe(true);
    } finally {
      await pair.close();
      await m.close();
    }
  });
});

describe("an upstream's questions outside any call", () => {
  const asked = async (roots?: Array<{ uri: string; name?: string }>) => {
    const record = join(dir, `record-${Math.random().toString(36).slice(2)}.jsonl`);
    const { server } = gatewayServer();
    const m = mount(
      server,
      'scripted',
      { command: process.execPath, args: [SCRIPTED], env: { RECORD_FILE: record, BEHAVIOUR: 'asks-roots' } },
      roots ? { roots } : {},
    );
    await m.ready;
    const received = () =>
      readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>);
    try {
      await until(() => ['roots-1', 'elicit-1'].every((id) => received().some((r) => r.id === id)), 'answered');
      return { roots: received().find((r) => r.id === 'roots-1')!, elicit: received().find((r) => r.id === 'elicit-1')! };
    } finally {
      await m.close();
    }
  };

  it('roots/list is answered with no roots by default, and elicitation is refused (no user to ask)', async () => {
    const { roots, elicit } = await asked();
    expect(roots.result).toEqual({ roots: [] });
    expect(elicit.error).toBeDefined();
    expect(elicit.result).toBeUndefined();
  });

  it('roots/list is answered with the roots configured for the upstream', async () => {
    const { roots } = await asked([{ uri: 'file:///srv/shared', name: 'shared' }]);
    expect(roots.result).toEqual({ roots: [{ uri: 'file:///srv/shared', name: 'shared' }] });
  });

  it('the config takes roots for stdio and HTTP upstreams, file:// URIs only', () => {
    expect(
      configProblems(() =>
        validateConfig({ upstreams: { a: { command: 'x', roots: [{ uri: 'file:///srv' }] }, b: { url: 'https://h/mcp', roots: [] } } }, 'c.json'),
      ),
    ).toEqual([]);
    expect(configProblems(() => validateConfig({ upstreams: { a: { command: 'x', roots: [{ uri: 'https://evil' }] } } }, 'c.json')).join('\n')).toMatch(
      /roots/,
    );
  });
});
