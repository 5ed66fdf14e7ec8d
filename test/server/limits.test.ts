import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_RATE_LIMIT } from '../../src/policy/rate-limit.js';
import { ToolServer, type ToolServerOptions } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { MessageStreamSession } from '../../src/transports/message-stream.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger, modernMeta, wire } from '../helpers/wire.js';

const echo: Tool = {
  name: 'echo',
  description: 'Echoes text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }) => text,
};

const setup = (tools: Tool[], options: ToolServerOptions = {}) => {
  const server = new ToolServer({ logger: memoryLogger().logger, tools, ...options });
  return { server, ...wire(server) };
};

describe('rate limits', () => {
  it('refuses calls over a tool limit with an isError result that says when to retry', async () => {
    const { modern } = setup([echo], { limits: { rateLimit: { perTool: { points: 2, durationSeconds: 60 } } } });
    for (let i = 0; i < 2; i++) expect((await modern('tools/call', { name: 'echo', arguments: { text: 'x' } })).result.isError).toBeUndefined();
    const refused = (await modern('tools/call', { name: 'echo', arguments: { text: 'x' } })).result;
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/^Rate limit exceeded for tool echo \(2 calls per 60 s\)\. Retry after \d+(\.\d)? s\.$/);
  });

  it('keeps separate buckets per tool, and tool-specific rules win', async () => {
    const other: Tool = { ...echo, name: 'other' };
    const { modern } = setup([echo, other], {
      limits: { rateLimit: { perTool: { points: 1, durationSeconds: 60 }, tools: { other: { points: 3, durationSeconds: 60 } } } },
    });
    await modern('tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect((await modern('tools/call', { name: 'echo', arguments: { text: 'x' } })).result.isError).toBe(true);
    for (let i = 0; i < 3; i++) expect((await modern('tools/call', { name: 'other', arguments: { text: 'x' } })).result.isError).toBeUndefined();
  });

  it('limits each caller across tools', async () => {
    const { modern } = setup([echo], { limits: { rateLimit: { perPrincipal: { points: 1, durationSeconds: 60 } } } });
    await modern('tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect((await modern('tools/call', { name: 'echo', arguments: { text: 'x' } })).result.content[0].text).toMatch(/for this caller/);
  });
});

/** Sends `count` echo calls as `principal` through a session of its own, 50 at a time (under the concurrency cap); the answers' texts. */
async function callsAs(server: ToolServer, principal: string | undefined, count: number, tool = 'echo'): Promise<string[]> {
  const waiting = new Map<number, (text: string) => void>();
  const session = new MessageStreamSession(
    server,
    (json) => {
      const msg = JSON.parse(json);
      waiting.get(msg.id)?.(msg.result.isError ? msg.result.content[0].text : 'ok');
    },
    'memory',
    principal,
  );
  const call = (id: number) =>
    new Promise<string>((resolve) => {
      waiting.set(id, resolve);
      session.receive(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: { text: 'x' }, _meta: modernMeta() } }));
    });
  const texts: string[] = [];
  for (let at = 0; at < count; at += 50) {
    texts.push(...(await Promise.all(Array.from({ length: Math.min(50, count - at) }, (_, i) => call(at + i)))));
  }
  return texts;
}

describe('rate limits by default (tools.mdx: servers MUST rate limit tool invocations)', () => {
  it('are generous: 1,200 calls a minute per caller, 6,000 per tool', () => {
    expect(DEFAULT_RATE_LIMIT).toEqual({ perPrincipal: { points: 1200, durationSeconds: 60 }, perTool: { points: 6000, durationSeconds: 60 } });
  });

  it('refuse a caller past its default limit, with a retry hint, while other callers go on', async () => {
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false, tools: [echo] });
    const texts = await callsAs(server, 'greedy', 1201);
    expect(texts.slice(0, 1200).every((t) => t === 'ok')).toBe(true);
    expect(texts[1200]).toMatch(/^Rate limit exceeded for this caller \(1200 calls per 60 s\)\. Retry after \d+(\.\d)? s\.$/);
    expect(await callsAs(server, 'other', 1)).toEqual(['ok']);
  });

  it('cap each tool across callers at its default, leaving other tools alone', async () => {
    const other: Tool = { ...echo, name: 'other' };
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false, tools: [echo, other] });
    for (let i = 0; i < 5; i++) expect((await callsAs(server, `caller-${i}`, 1200)).every((t) => t === 'ok')).toBe(true);
    expect(await callsAs(server, 'late', 1)).toEqual([expect.stringMatching(/^Rate limit exceeded for tool echo \(6000 calls per 60 s\)/)]);
    expect(await callsAs(server, 'late', 1, 'other')).toEqual(['ok']);
  });

  it('keep the defaults a partial setting leaves out; false switches one rule off', async () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [echo],
      limits: { rateLimit: { perTool: { points: 5000, durationSeconds: 60 } } },
    });
    expect((await callsAs(server, undefined, 1201))[1200]).toMatch(/for this caller \(1200 calls per 60 s\)/);
    const perToolOnly = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [echo],
      limits: { rateLimit: { perPrincipal: false, perTool: { points: 1300, durationSeconds: 60 } } },
    });
    const texts = await callsAs(perToolOnly, undefined, 1301);
    expect(texts.slice(0, 1300).every((t) => t === 'ok')).toBe(true);
    expect(texts[1300]).toMatch(/for tool echo \(1300 calls per 60 s\)/);
  });

  it('are off with rateLimit: false', async () => {
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false, tools: [echo], limits: { rateLimit: false } });
    expect((await callsAs(server, undefined, 1300)).every((t) => t === 'ok')).toBe(true);
  });

  it("do not let a caller over its own limit spend the tool's shared budget", async () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [echo],
      limits: { rateLimit: { perPrincipal: { points: 1, durationSeconds: 60 }, perTool: { points: 3, durationSeconds: 60 } } },
    });
    await callsAs(server, 'greedy', 50); // one allowed, 49 refused by its own limit
    expect(await callsAs(server, 'a', 1)).toEqual(['ok']);
    expect(await callsAs(server, 'b', 1)).toEqual(['ok']);
  });

  it('keep a caller named "anonymous" apart from unauthenticated callers', async () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [echo],
      limits: { rateLimit: { perPrincipal: { points: 1, durationSeconds: 60 } } },
    });
    expect(await callsAs(server, undefined, 1)).toEqual(['ok']);
    expect(await callsAs(server, 'anonymous', 1)).toEqual(['ok']);
  });

  it('refuse rules that cannot work: zero points, a window that never ends', () => {
    expect(() => new ToolServer({ audit: false, limits: { rateLimit: { perTool: { points: 0, durationSeconds: 60 } } } })).toThrow(RangeError);
    expect(() => new ToolServer({ audit: false, limits: { rateLimit: { perPrincipal: { points: 1, durationSeconds: Infinity } } } })).toThrow(RangeError);
  });
});

describe('a rate-limited call over HTTP', () => {
  it('answers JSON with a Retry-After header in seconds; an allowed call has none', async () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [echo],
      limits: { rateLimit: { perTool: { points: 1, durationSeconds: 30 } } },
    });
    const http = await startHttp(server);
    try {
      const allowed = await http.modern('tools/call', { name: 'echo', arguments: { text: 'x' } });
      expect([allowed.status, allowed.headers.get('retry-after')]).toEqual([200, null]);
      await allowed.text();
      const limited = await http.modern('tools/call', { name: 'echo', arguments: { text: 'x' } });
      expect(limited.status).toBe(200);
      expect(limited.headers.get('content-type')).toBe('application/json');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(30);
      const body = await limited.json();
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0].text).toMatch(/Rate limit exceeded for tool echo/);
    } finally {
      await http.close();
    }
  });
});

describe('concurrency', () => {
  it('answers 1,000 concurrent calls against a cap of 50 without exceeding the cap or the queue', async () => {
    let running = 0;
    let peak = 0;
    const slow: Tool = {
      name: 'slow',
      description: 'x',
      inputSchema: { type: 'object' },
      handler: async () => {
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return 'done';
      },
    };
    const { modern } = setup([slow], { limits: { maxInFlight: 50, maxQueued: 200 } });
    const results = await Promise.all(Array.from({ length: 1000 }, () => modern('tools/call', { name: 'slow', arguments: {} })));
    expect(results).toHaveLength(1000);
    const done = results.filter((r) => r.result.content[0].text === 'done').length;
    const refused = results.filter((r) => /overloaded \(50 calls running, 200 waiting\)/.test(r.result.content[0].text)).length;
    expect(done + refused).toBe(1000);
    expect(done).toBe(250);
    expect(peak).toBe(50);
  });
});

describe('sizes', () => {
  it('refuses arguments over the limit before validating them', async () => {
    const { modern } = setup([echo], { limits: { maxArgumentBytes: 100 } });
    const res = await modern('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(200) } });
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0].text).toMatch(/arguments of echo are 21\d bytes; the limit is 100/);
  });

  it('sends large output by reference: a preview, a resource_link, and the full text through resources/read', async () => {
    const big = 'line of output\n'.repeat(1000);
    const { modern } = setup([{ ...echo, handler: () => big }], { limits: { maxResultBytes: 4096 } });
    const res = await modern('tools/call', { name: 'echo', arguments: { text: '' } });
    const [preview, link] = res.result.content;
    expect(preview.type).toBe('text');
    expect(preview.text.length).toBeLessThan(1200);
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'text/plain', size: big.length, uri: expect.stringMatching(/^toolwright:\/\/results\//) });
    const read = await modern('resources/read', { uri: link.uri });
    expect(read.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', contents: [{ uri: link.uri, mimeType: 'text/plain', text: big }] });
    expect(read.result.ttlMs).toBeGreaterThan(0);
  });

  it('stores binary content as a blob', async () => {
    const data = Buffer.alloc(8192, 7).toString('base64');
    const { modern } = setup([{ ...echo, handler: () => ({ content: [{ type: 'image', data, mimeType: 'image/png' }] }) }], {
      limits: { maxResultBytes: 4096 },
    });
    const link = (await modern('tools/call', { name: 'echo', arguments: { text: '' } })).result.content[0];
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'image/png' });
    expect((await modern('resources/read', { uri: link.uri })).result.contents[0].blob).toBe(data);
  });

  it('answers an unknown or expired resource with -32602 naming the uri', async () => {
    const { modern } = setup([echo]);
    const res = await modern('resources/read', { uri: 'toolwright://results/nope/x' });
    expect(res.error).toEqual({ code: -32602, message: 'Resource not found (it may have expired)', data: { uri: 'toolwright://results/nope/x' } });
  });

  it('lets stored results expire', async () => {
    const { modern } = setup([{ ...echo, handler: () => 'y'.repeat(5000) }], { limits: { maxResultBytes: 1024, resultStore: { ttlMs: 20 } } });
    const link = (await modern('tools/call', { name: 'echo', arguments: { text: '' } })).result.content[1];
    await new Promise((r) => setTimeout(r, 40));
    expect((await modern('resources/read', { uri: link.uri })).error.code).toBe(-32602);
  });

  it('keeps a large text inline without measuring it when even 3 bytes a character fit, and measures it when they might not', async () => {
    const far = 'x'.repeat(100_000); // at most 300,000 bytes as UTF-8, whatever it holds: fits
    const near = 'x'.repeat(120_000); // up to 360,000 bytes by that bound: it must be measured (and fits)
    const { modern } = setup([{ ...echo, handler: ({ text }) => (text === 'far' ? far : near) }], { limits: { maxResultBytes: 340_000 } });
    const measured = vi.spyOn(Buffer, 'byteLength');
    try {
      expect((await modern('tools/call', { name: 'echo', arguments: { text: 'far' } })).result.content).toEqual([{ type: 'text', text: far }]);
      expect(measured.mock.calls.some(([value]) => value === far)).toBe(false);
      measured.mockClear();
      const res = await modern('tools/call', { name: 'echo', arguments: { text: 'near' } });
      expect(measured.mock.calls.some(([value]) => value === near)).toBe(true);
      expect(res.result.content).toEqual([{ type: 'text', text: near }]);
    } finally {
      measured.mockRestore();
    }
  });

  it('fits the preview to a limit smaller than the usual preview, and never calls a plain text result structured', async () => {
    const text = 'z'.repeat(5000);
    const { modern } = setup([{ ...echo, handler: () => text }], { limits: { maxResultBytes: 1024 } });
    const res = await modern('tools/call', { name: 'echo', arguments: { text: '' } });
    expect(res.result.isError).toBeUndefined();
    const [preview, link] = res.result.content;
    expect(preview.text.startsWith('z'.repeat(100))).toBe(true);
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'text/plain', size: 5000 });
    expect(Buffer.byteLength(JSON.stringify(res.result))).toBeLessThanOrEqual(1024);
    expect((await modern('resources/read', { uri: link.uri })).result.contents[0].text).toBe(text);

    const tiny = setup([{ ...echo, handler: () => text }], { limits: { maxResultBytes: 64 } });
    const refused = await tiny.modern('tools/call', { name: 'echo', arguments: { text: '' } });
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0].text).toMatch(/does not fit the 64-byte limit even as links/);
    expect(refused.result.content[0].text).not.toMatch(/structured/);
  });

  it('keeps results under the limit inline', async () => {
    const { modern } = setup([echo], { limits: { maxResultBytes: 4096 } });
    expect((await modern('tools/call', { name: 'echo', arguments: { text: 'small' } })).result.content).toEqual([{ type: 'text', text: 'small' }]);
  });
});
