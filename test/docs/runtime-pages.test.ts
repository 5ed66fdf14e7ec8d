import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks } from '../helpers/markdown-blocks.js';

// Each runtime's page shows the example its runtime test runs (test/runtimes/*.test.ts) and
// `npm run typecheck` checks: the page's TypeScript block is that file, word for word.
const root = join(import.meta.dirname, '../..');
const PAGES = { 'node.md': 'node.ts', 'deno.md': 'deno.ts', 'bun.md': 'bun.ts', 'workers.md': 'worker.ts' };

describe('docs/runtimes: one page per runtime, with the example its test runs', () => {
  for (const [page, example] of Object.entries(PAGES)) {
    it(`docs/runtimes/${page} shows examples/runtimes/${example} as it is`, () => {
      const blocks = codeBlocks(readFileSync(join(root, 'docs/runtimes', page), 'utf8')).filter((b) => b.info[0] === 'ts');
      expect(blocks).toHaveLength(1);
      expect(blocks[0].code.trimEnd()).toBe(readFileSync(join(root, 'examples/runtimes', example), 'utf8').trimEnd());
    });
  }
});
