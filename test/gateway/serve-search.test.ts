/** `toolwright serve --search-catalog` and the config's `catalog: { mode: search }`: search mode without code. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { validateConfig } from '../../src/config/validate.js';
import { configProblems } from '../helpers/config.js';
import { lifecycleTools, startHttpServe } from '../helpers/serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'tw-serve-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve --search-catalog', () => {
  it('lists only search_tools and call_tool, and the tools are found and called through them', async () => {
    const serve = await startHttpServe(['--host', '127.0.0.1', '--tools', lifecycleTools, '--search-catalog'], {
      cwd: dir,
      env: { TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: dir },
    });
    const client = await ToolClient.connect({ url: serve.url }, { onWarning: () => {} });
    try {
      expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['call_tool', 'search_tools']);
      const found = await client.callTool('search_tools', { query: 'answers after milliseconds' });
      expect((found.structuredContent as { tools: Array<{ name: string }> }).tools[0].name).toBe('sleep');
      expect((await client.callTool('call_tool', { name: 'sleep', arguments: { ms: 1 } })).content).toEqual([{ type: 'text', text: 'slept 1 ms' }]);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('the config key catalog:', () => {
  it('mode: search turns search mode on, and matches bounds search_tools', async () => {
    const config = join(dir, 'toolwright.config.json');
    writeFileSync(config, JSON.stringify({ tools: [lifecycleTools], catalog: { mode: 'search', matches: 1 } }));
    const serve = await startHttpServe(['--host', '127.0.0.1', '--config', config], {
      cwd: dir,
      env: { TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: dir },
    });
    const client = await ToolClient.connect({ url: serve.url }, { onWarning: () => {} });
    try {
      expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['call_tool', 'search_tools']);
      const found = await client.callTool('search_tools', { query: 'milliseconds' });
      expect((found.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['sleep']);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('is checked by the config schema', () => {
    expect(configProblems(() => validateConfig({ catalog: { mode: 'list' } }, 'c.json'))).toEqual([]);
    expect(configProblems(() => validateConfig({ catalog: { mode: 'search', matches: 50 } }, 'c.json'))).toEqual([]);
    expect(configProblems(() => validateConfig({ catalog: { mode: 'find' } }, 'c.json')).join('\n')).toMatch(/catalog/);
    expect(configProblems(() => validateConfig({ catalog: { mode: 'search', matches: 500 } }, 'c.json')).join('\n')).toMatch(/catalog/);
    expect(configProblems(() => validateConfig({ catalog: { serach: true } }, 'c.json')).join('\n')).toMatch(/catalog/);
  });
});
