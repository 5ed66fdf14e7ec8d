/**
 * Upstreams that fail: one that dies is restarted (with backoff) while its tools answer isError
 * results naming it; one that never answers is bounded by its timeout; one that never starts
 * holds nobody else; and hostile ones (markup and escapes, churning lists, notification floods,
 * 10 MiB results) leave the gateway up and bounded.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Gateway, mount, type MountHandle } from '../../src/gateway/index.js';
import { createInMemoryPair } from '../../src/testing.js';
import { gatewayServer } from './helpers.js';

const SCRIPTED = resolve('test/gateway/fixtures/scripted-upstream.mjs');
const scripted = (behaviour = '') => ({ command: process.execPath, args: [SCRIPTED], env: { BEHAVIOUR: behaviour } });
const text = (result: { content: unknown[] }) => (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

const opened: MountHandle[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});
function track(handle: MountHandle): MountHandle {
  opened.push(handle);
  return handle;
}

describe('an upstream that dies', () => {
  it('answers isError naming it while it is down, and is restarted', async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'flaky', scripted()));
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      const died = await client.callTool('flaky_die', {});
      expect(died.isError).toBe(true);
      expect(text(died)).toContain('upstream "flaky"');
      // Until it is back, calls answer at once, naming it; then it is restarted and answers again.
      await expect.poll(async () => text(await client.callTool('flaky_echo', { text: 'back' })), { timeout: 10_000, interval: 100 }).toBe('echo: back');
      expect(m.health()).toMatchObject({ state: 'up' });
      expect(m.health().restarts).toBeGreaterThanOrEqual(1);
    } finally {
      await close();
    }
  }, 30_000);
});

describe('an upstream that never answers', () => {
  it('a call is cancelled after timeoutMs and answered isError naming the upstream', async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'slow', scripted(), { timeoutMs: 300 }));
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      const result = await client.callTool('slow_wait', {});
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('upstream "slow" did not answer within 300 ms');
    } finally {
      await close();
    }
  }, 30_000);

  it('one that never finishes its handshake does not hold the others back', async () => {
    const { server } = gatewayServer();
    const gateway = new Gateway(server);
    gateway.add('mute', { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], connectTimeoutMs: 300 });
    gateway.add('fine', scripted());
    try {
      expect(await gateway.started(3_000)).toEqual(['mute']);
      expect(server.tools.names()).toContain('fine_echo');
      await expect.poll(() => gateway.health()[0].lastError ?? '', { timeout: 5_000 }).not.toBe('');
      expect(gateway.health()[0].state).not.toBe('up');
    } finally {
      await gateway.close();
    }
  }, 30_000);
});

describe('hostile upstreams', () => {
  it('markup and escapes in names and descriptions: invalid names left out, escapes and bidi controls removed', async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'hostile', scripted('hostile-names')));
    await m.ready;
    const names = server.tools.names();
    expect(names).toContain('hostile_styled');
    expect(names.some((n) => n.includes('<'))).toBe(false);
    const styled = server.tools.get('hostile_styled')!.tool;
    expect(styled.description).not.toMatch(/[\u001b\u202e\u0007]/);
    expect(styled.title).not.toMatch(/[\u001b\u0007]/);
    // Markup stays text: the gateway speaks JSON; whatever shows it decides how to render it.
    expect(styled.description).toContain('RED');
  }, 30_000);

  it('an error quoting URL credentials reaches the client without them, as health shows it', async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'leaky', scripted('leaky-errors')));
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      const result = await client.callTool('leaky_echo', { text: 'x' });
      expect(result.isError).toBe(true);
      const said = text(result);
      expect(said).toContain('upstream "leaky" refused the call: connect failed: postgres://…@db.internal:5432');
      // A password holding a raw "@" goes whole, not just up to its first "@".
      for (const secret of ['hunter2', 'admin:', 'svc:', 'ssw0rd', '/srv/app']) expect(said).not.toContain(secret);
    } finally {
      await close();
    }
  }, 30_000);

  it("escapes, bidi controls and invisible text removed from the schemas' titles and descriptions too, validation keywords kept", async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'hostile', scripted('hostile-names')));
    await m.ready;
    const styled = server.tools.get('hostile_styled')!.tool;
    const mode = (styled.inputSchema as { properties: Record<string, { title: string; description: string; enum: string[] }> }).properties.mode;
    expect(mode.title).toBe('Mode');
    expect(mode.description).toBe('how  evil');
    expect(mode.enum).toEqual(['a\u202eb', 'plain']);
    expect((styled.outputSchema as { description: string }).description).toBe('cleared');
  }, 30_000);

  it('a list that changes all the time: the gateway keeps serving, and its listing follows', async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'churn', scripted('churn')));
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      const seen = new Set<number>();
      const started = Date.now();
      while (Date.now() - started < 2_000) {
        seen.add(server.tools.names().filter((n) => n.startsWith('churn_extra_')).length);
        expect(text(await client.callTool('churn_echo', { text: 'still here' }))).toBe('echo: still here');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(seen.size).toBeGreaterThan(1);
    } finally {
      await close();
    }
  }, 30_000);

  it('a notification flood: the call still answers and the gateway stays up', async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'flood', scripted('flood')));
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      expect(text(await client.callTool('flood_echo', { text: 'through the flood' }))).toBe('echo: through the flood');
      expect(text(await client.callTool('flood_echo', { text: 'again' }))).toBe('echo: again');
    } finally {
      await close();
    }
  }, 30_000);

  it('a 10 MiB result: the server caps what reaches the client', async () => {
    const { server } = gatewayServer();
    const m = track(mount(server, 'huge', scripted()));
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      const result = await client.callTool('huge_big', {});
      expect(JSON.stringify(result).length).toBeLessThan(2 * 1024 * 1024);
      expect(m.health().state).toBe('up');
      expect(text(await client.callTool('huge_echo', { text: 'after' }))).toBe('echo: after');
    } finally {
      await close();
    }
  }, 30_000);
});
