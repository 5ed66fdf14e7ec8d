/**
 * Upstream lists cached across restarts (`cacheLists: true`): a gateway restarted while an upstream
 * is slow or down serves that upstream's last tools, prompts and resources until it answers (its
 * calls then say it is unavailable), and the cache follows the upstream's list changes.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Gateway } from '../../src/gateway/index.js';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { tempDir } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`${what}: not within 10 s`);
}

function upstreamServer() {
  const server = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  server.addTool(defineTool({ name: 'add', description: 'adds', inputSchema: { type: 'object' }, handler: () => '3' }));
  server.prompts.add(definePrompt({ name: 'greet', get: () => 'hi' }));
  server.resources.add({ uri: 'notes://today', name: 'today', read: () => 'buy milk' });
  return server;
}

/** Nothing listens there: connecting fails at once, and is retried. */
const DOWN = { url: 'http://127.0.0.1:9/mcp', cacheLists: true };

describe('cached upstream lists', () => {
  it('serve the last listing after a restart until the upstream answers, and follow its list changes', async () => {
    const cacheDir = tempDir('tw-gateway-cache-');
    const up = upstreamServer();
    const first = gatewayServer().server;
    const live = new Gateway(first, { cacheDir });
    live.add('calc', { server: up, cacheLists: true });
    await live.started(5_000);
    await until(() => first.prompts.has('calc_greet') && first.resources.get('calc+notes://today') !== undefined, 'listed');
    // A list change upstream reaches the cache.
    up.addTool(defineTool({ name: 'sub', description: 'subtracts', inputSchema: { type: 'object' }, handler: () => '1' }));
    const file = join(cacheDir, 'calc.json');
    const cachedNames = () => {
      try {
        return (JSON.parse(readFileSync(file, 'utf8')).tools as Array<{ name: string }>).map((t) => t.name).sort();
      } catch {
        return [];
      }
    };
    await until(() => cachedNames().includes('sub'), 'cached after list_changed');
    expect(cachedNames()).toEqual(['add', 'sub']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await live.close();

    // Restarted, the upstream now unreachable at another address: its entries come from the cache.
    const { server: second } = gatewayServer();
    const restarted = new Gateway(second, { cacheDir });
    restarted.add('calc', DOWN);
    expect(await restarted.started(5_000)).toEqual([]);
    expect(second.tools.names().sort()).toEqual(['calc_add', 'calc_sub']);
    expect(second.prompts.has('calc_greet')).toBe(true);
    expect(second.resources.get('calc+notes://today')).toBeDefined();
    const pair = await createInMemoryPair(second);
    try {
      const result = await pair.client.callTool('calc_add', {});
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/upstream \\"calc\\" is unavailable/);
    } finally {
      await pair.close();
      await restarted.close();
    }
  });

  it('is off unless the entry asks for it, and a broken cache file is ignored', async () => {
    const cacheDir = tempDir('tw-gateway-cache-');
    const { server } = gatewayServer();
    const g = new Gateway(server, { cacheDir });
    g.add('plain', { server: upstreamServer() });
    await g.started(5_000);
    await g.close();
    expect(() => statSync(join(cacheDir, 'plain.json'))).toThrow();

    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(cacheDir, 'calc.json'), '{"tools": "not a list", "prompts": [1, 2]}');
    const { server: other } = gatewayServer();
    const h = new Gateway(other, { cacheDir });
    h.add('calc', DOWN);
    expect(await h.started(300)).toEqual(['calc']);
    expect(other.tools.names()).toEqual([]);
    await h.close();
  });
});
