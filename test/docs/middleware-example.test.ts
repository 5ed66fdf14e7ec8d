import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RpcError, ToolServer, type Middleware } from '../../src/index.js';
import { createInMemoryPair } from '../../src/testing.js';
import { codeBlocks } from '../helpers/markdown-blocks.js';
import { memoryLogger } from '../helpers/wire.js';

/**
 * docs/middleware.md's logging middleware, run as the page prints it (examples.test.ts only
 * type-checks it): its code is taken from the page, so the page cannot drift from what is tested.
 */
function documentedLogger(): (log: (...args: unknown[]) => void) => Middleware {
  const page = readFileSync(join(import.meta.dirname, '../../docs/middleware.md'), 'utf8');
  const block = codeBlocks(page).find((b) => b.code.includes('// Every method.'));
  const source = /server\.use\((async \(ctx, next\) => \{[\s\S]*?\n\})\);/.exec(block?.code ?? '')?.[1];
  if (!source) throw new Error('docs/middleware.md: the "Every method." logging middleware is not where this test looks for it');
  // Plain JavaScript as written (no type annotations): its `console` is the test's.
  return (log) => new Function('console', `return ${source};`)({ error: log }) as Middleware;
}

describe("docs/middleware.md's logging middleware", () => {
  it("logs an anonymous caller as 'anonymous', and logs a request an inner middleware refuses", async () => {
    const lines: unknown[][] = [];
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tasks: false,
      tools: [{ name: 'deploy', description: 'deploys', inputSchema: { type: 'object' }, handler: () => 'deployed' }],
    });
    server.use(documentedLogger()((...args) => lines.push(args)));
    server.use('tools/call', async (ctx, next) => {
      if (ctx.tool.name === 'deploy' && ctx.caller.id !== 'release-bot') throw new RpcError(-32001, 'Only the release bot deploys');
      return next();
    });
    const { client, close } = await createInMemoryPair(server);
    try {
      await expect(client.callTool('deploy', {})).rejects.toThrow(/Only the release bot deploys/);
      await client.listTools();
    } finally {
      await close();
      server.close();
    }
    const calls = lines.filter(([method]) => method === 'tools/call');
    expect(calls).toEqual([['tools/call', 'anonymous', expect.any(Number)]]);
  });
});
