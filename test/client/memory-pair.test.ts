import { afterEach, describe, expect, it } from 'vitest';
import { CancelledError, McpRpcError, TimeoutError } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { ToolError } from '../../src/server/tool.js';
import { createInMemoryPair, type InMemoryPair } from '../../src/testing.js';

function buildServer(options: { pageSize?: number; listTtlMs?: number } = {}) {
  const server = new ToolServer({ name: 'mem', version: '9.9.9', logger: createLogger('silent'), ...options });
  const aborted: string[] = [];
  server.addTool(
    {
      name: 'add',
      description: 'Add two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      handler: ({ a, b }) => ({ sum: a + b }),
    },
    {
      name: 'fail',
      description: 'Always fails',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new ToolError('the disk is full');
      },
    },
    {
      name: 'slow',
      description: 'Reports progress, then waits for the abort',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        ctx.progress(1, 3, 'one');
        ctx.progress(2, 3, 'two');
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted.push(String(ctx.requestId));
        return 'too late';
      },
    },
    {
      name: 'count',
      description: 'Progress then result, back to back',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) => {
        for (let i = 1; i <= 5; i++) ctx.progress(i, 5);
        return 'counted';
      },
    },
  );
  return { server, aborted };
}

let pair: InMemoryPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

describe('ToolClient over the in-memory pair', () => {
  it('detects a modern server in auto mode and reports what discover said', async () => {
    pair = await createInMemoryPair(buildServer().server);
    const { client } = pair;
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toMatchObject({ name: 'mem', version: '9.9.9' });
    expect(client.capabilities).toHaveProperty('tools');
  });

  it('speaks legacy when asked, negotiating through initialize', async () => {
    pair = await createInMemoryPair(buildServer().server, { era: 'legacy' });
    expect(pair.client.era).toBe('legacy');
    expect(pair.client.protocolVersion).toBe('2025-11-25');
    const result = await pair.client.callTool('add', { a: 2, b: 3 });
    expect(result.structuredContent).toEqual({ sum: 5 });
  });

  it('lists every page of tools', async () => {
    pair = await createInMemoryPair(buildServer({ pageSize: 1 }).server);
    const tools = await pair.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'fail', 'slow', 'count']);
    expect(tools[0].outputSchema).toMatchObject({ type: 'object' });
  });

  it('serves listTools from the cache while ttlMs lasts, and refetches on refresh', async () => {
    const { server } = buildServer({ listTtlMs: 60_000 });
    pair = await createInMemoryPair(server);
    expect(await pair.client.listTools()).toHaveLength(4);
    server.addTool({ name: 'late', description: 'added later', inputSchema: { type: 'object' }, handler: () => 'x' });
    expect(await pair.client.listTools()).toHaveLength(4);
    expect(await pair.client.listTools({ refresh: true })).toHaveLength(5);
  });

  it('refetches when the listing is stale (ttlMs 0)', async () => {
    const { server } = buildServer({ listTtlMs: 0 });
    pair = await createInMemoryPair(server);
    expect(await pair.client.listTools()).toHaveLength(4);
    server.addTool({ name: 'late', description: 'added later', inputSchema: { type: 'object' }, handler: () => 'x' });
    expect(await pair.client.listTools()).toHaveLength(5);
  });

  it('returns isError results instead of throwing', async () => {
    pair = await createInMemoryPair(buildServer().server);
    const result = await pair.client.callTool('fail');
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'the disk is full' }]);
  });

  it('throws McpRpcError for an unknown tool', async () => {
    pair = await createInMemoryPair(buildServer().server);
    const err = await pair.client.callTool('nope').catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect(err.code).toBe(-32602);
  });

  it('delivers every progress notification written before the result', async () => {
    pair = await createInMemoryPair(buildServer().server);
    const seen: number[] = [];
    const result = await pair.client.callTool('count', {}, { onProgress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(result.content[0]).toEqual({ type: 'text', text: 'counted' });
  });

  it('cancels a call that times out: the handler sees the abort', async () => {
    const { server, aborted } = buildServer();
    pair = await createInMemoryPair(server);
    const progress: string[] = [];
    const err = await pair.client
      .callTool('slow', {}, { timeoutMs: 100, onProgress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`) })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(progress).toEqual(['1/3 one', '2/3 two']);
    await expect.poll(() => aborted.length).toBe(1);
  });

  it('cancels a call when the caller aborts', async () => {
    const { server, aborted } = buildServer();
    pair = await createInMemoryPair(server);
    const controller = new AbortController();
    const call = pair.client.callTool('slow', {}, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    await expect.poll(() => aborted.length).toBe(1);
  });

  it('refuses calls after close', async () => {
    pair = await createInMemoryPair(buildServer().server);
    await pair.client.close();
    await expect(pair.client.listTools()).rejects.toThrow(/closed/);
  });
});
