import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsSettings } from '../../../src/toolsets/fs/options.js';
import { searchFilesTool } from '../../../src/toolsets/fs/search-files.js';
import { ToolServer } from '../../../src/server/server.js';
import { watchEventLoop } from '../../helpers/event-loop.js';
import { memoryLogger, wire } from '../../helpers/wire.js';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

// Hostile arguments to search_files (issue 18, item 1): a pattern must never
// cost more than time linear in the names it is matched against, and no
// search may hold the event loop, so the rest of the server keeps answering
// and a cancelled or timed-out search stops.

let ws: Workspace;
const FLAT_FILES = 1_500;
/** A needle that makes String#includes run in time far beyond linear on a long line of `a`. */
const HOSTILE_NEEDLE = `${'a'.repeat(100)}b${'a'.repeat(899)}`;
/** Names on which a backtracking matcher of `*a*a*a*a*a*a*a*b` takes a long time each. */
const SLOW_NAMES = Array.from({ length: 12 }, (_, i) => `${'a'.repeat(34)}${String(i).padStart(2, '0')}`);

beforeAll(async () => {
  ws = await workspace();
  for (const rel of ['box', 'fax', 'a.ts', 'sub/inner.x', 'sub/deep/x.ts', 'sub/deep/y.ts', 'sub/deep/er/z.ts']) await ws.write(rel, 'plain text\n');
  for (const name of [...SLOW_NAMES, 'aaaaaaab', 'xaxaxaxaxaxaxaxb', `${'a'.repeat(249)}b`]) await ws.write(`slow/${name}`, 'x');
  // One line of a million `a`, and one that ends with the needle below: String#includes takes ~0.4 s on each.
  await ws.write('long/one.txt', 'a'.repeat(1_000_000));
  await ws.write('long/two.txt', `${'a'.repeat(1_000_000)}${HOSTILE_NEEDLE}\nend\n`);
  await Promise.all(
    Array.from({ length: FLAT_FILES }, (_, i) => ws.write(`flat/f${String(i).padStart(5, '0')}.txt`, `line one\nline two has the needle ${i}\n`)),
  );
}, 60_000);

afterAll(() => ws.cleanup());

const paths = (r: Record<string, any>) => r.structuredContent.matches.map((m: { path: string }) => m.path);

describe('search_files with pathological patterns', () => {
  it('answers 490 stars and an x (the reported freeze) with the names that end in x', async () => {
    const r = await ws.call('search_files', { pattern: `${'*'.repeat(490)}x` });
    expect(r.isError).toBeUndefined();
    expect(paths(r)).toEqual(['box', 'fax', 'sub/inner.x']);
  });

  it('answers `*a*a*…*b` at the 500-character limit, matching only the name that has enough a', async () => {
    const pattern = `${'*a'.repeat(249)}*b`;
    expect(pattern).toHaveLength(500);
    const r = await ws.call('search_files', { pattern, path: 'slow' });
    expect(paths(r)).toEqual([`slow/${'a'.repeat(249)}b`]);
  });

  it('answers deeply nested and many repeated {a,b} groups', async () => {
    let nested = 'box';
    for (let i = 0; i < 8; i++) nested = `{a,${nested}}`;
    expect(paths(await ws.call('search_files', { pattern: nested }))).toEqual(['box']);
    const repeated = `${'{a,b,x,o,f}'.repeat(40)}`; // 5^40 ways to expand, one pass to match
    expect(paths(await ws.call('search_files', { pattern: `${repeated}*`, path: 'slow' }))).toEqual([`slow/${'a'.repeat(249)}b`]);
    const r = await ws.call('search_files', { pattern: '{b{o,a}x,{f,g}{a,b}{x,y}}' });
    expect(paths(r)).toEqual(['box', 'fax']);
  });

  it('answers a path glob of many `**/` with the files at every depth', async () => {
    const pattern = `${'**/'.repeat(160)}*.ts`;
    expect(pattern.length).toBeLessThanOrEqual(500);
    const r = await ws.call('search_files', { pattern });
    expect(paths(r)).toEqual(['a.ts', 'sub/deep/x.ts', 'sub/deep/y.ts', 'sub/deep/er/z.ts']);
    const mixed = await ws.call('search_files', { pattern: `sub/${'**/*'.repeat(100)}.ts` });
    expect(paths(mixed)).toEqual(['sub/deep/x.ts', 'sub/deep/y.ts', 'sub/deep/er/z.ts']);
  });

  it('never holds the event loop while it matches names that a backtracking matcher chokes on', async () => {
    const watch = watchEventLoop();
    const r = await ws.call('search_files', { pattern: '*a*a*a*a*a*a*a*b', path: 'slow' });
    const gap = watch.stop();
    expect(paths(r)).toEqual([`slow/${'a'.repeat(249)}b`, 'slow/aaaaaaab', 'slow/xaxaxaxaxaxaxaxb']);
    expect(gap).toBeLessThan(200);
  });

  it('still refuses malformed globs with a message the model can act on', async () => {
    expect(textOf(await ws.call('search_files', { pattern: '{a,{b,c}' }))).toMatch(/not a valid glob: unclosed "\{"/);
    expect(textOf(await ws.call('search_files', { pattern: '[z-a]' }))).toMatch(/not a valid glob: .*range "z-a"/);
  });
});

describe('search_files with a pathological content string', () => {
  it('finds a 1,000-character needle in megabyte lines without holding the loop', async () => {
    const watch = watchEventLoop();
    const r = await ws.call('search_files', { content: HOSTILE_NEEDLE, path: 'long' });
    const exact = await ws.call('search_files', { content: HOSTILE_NEEDLE.toUpperCase(), path: 'long', case_sensitive: true });
    const gap = watch.stop();
    expect(r.structuredContent.matches).toEqual([{ path: 'long/two.txt', type: 'file', lines: [{ line: 1, text: `${'a'.repeat(200)}…` }] }]);
    expect(exact.structuredContent.matches).toEqual([]);
    expect(gap).toBeLessThan(200);
  }, 30_000);
});

describe('search_files on a large tree', () => {
  it('answers a tools/list sent meanwhile before the search ends, and never stalls the loop', async () => {
    const watch = watchEventLoop();
    const order: string[] = [];
    const search = ws.call('search_files', { content: 'needle', path: 'flat', max_results: 1_000 }).then((r) => {
      order.push('search');
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const list = await ws.w.modern('tools/list');
    order.push('tools/list');
    const r = await search;
    const gap = watch.stop();
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('search_files');
    expect(order).toEqual(['tools/list', 'search']);
    expect(r.structuredContent.matches).toHaveLength(1_000);
    expect(gap).toBeLessThan(200);
  }, 30_000);

  it('stops when the call times out: the handler ends with the timeout, not with results', async () => {
    const tool = searchFilesTool(fsSettings({ sandbox: ws.sandbox }));
    let ended: Promise<string> | undefined;
    const timed = {
      ...tool,
      timeoutMs: 30,
      handler: (args: any, ctx: any) => {
        const run = Promise.resolve(tool.handler(args, ctx));
        ended = run.then(
          () => 'finished',
          (err: Error) => `stopped: ${err.message}`,
        );
        return run;
      },
    };
    const server = new ToolServer({ logger: memoryLogger().logger, tools: [timed] });
    const res = await wire(server).modern('tools/call', { name: 'search_files', arguments: { content: 'needle', path: 'flat', max_results: 1_000 } });
    expect(res.result.isError).toBe(true);
    expect(textOf(res.result)).toMatch(/timed out/);
    expect(await ended).toMatch(/^stopped: .*timed out/);
  }, 30_000);

  it('stops when its signal aborts, even in the middle of one large directory', async () => {
    const tool = searchFilesTool(fsSettings({ sandbox: ws.sandbox }));
    const controller = new AbortController();
    const ctx = { signal: controller.signal, progress: () => {}, log: () => {} } as any;
    setTimeout(() => controller.abort(new Error('cancelled by the client')), 30);
    await expect(Promise.resolve(tool.handler({ content: 'needle', path: 'flat', max_results: 1_000 } as any, ctx))).rejects.toThrow('cancelled by the client');
  }, 30_000);
});
