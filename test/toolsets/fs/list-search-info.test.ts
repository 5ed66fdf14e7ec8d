import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

let ws: Workspace;

beforeAll(async () => {
  ws = await workspace({ fs: { maxSearchScanned: 50 } });
  await ws.write('README.md', '# Project\nTODO: write docs\n');
  await ws.write('src/main.ts', 'export const x = 1; // todo later\n');
  await ws.write('src/util/strings.ts', 'export function pad() {}\n');
  await ws.write('.env', 'SECRET_TODO=1');
  await ws.write('.git/HEAD', 'ref: refs/heads/main TODO');
  await ws.write('data/blob.bin', Buffer.from([0, 1, 2, 84, 79, 68, 79]));
  await fs.symlink(ws.outside, ws.file('outside-link'));
  await fs.chmod(ws.file('README.md'), 0o640);
});

afterAll(() => ws.cleanup());

describe('list_directory', () => {
  it('lists one level with types, sizes and dates; hides protected names; shows links without following', async () => {
    const r = await ws.call('list_directory', {});
    const entries = r.structuredContent.entries as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.path, e.type])).toEqual([
      ['README.md', 'file'],
      ['data', 'directory'],
      ['outside-link', 'symlink'],
      ['src', 'directory'],
    ]);
    expect(entries[0].size).toBe(27);
    expect(typeof entries[0].modified).toBe('string');
    expect(r.structuredContent).toMatchObject({ path: '.', truncated: false, hidden: 2 });
    expect(textOf(r)).toContain('src/');
    expect(textOf(r)).toContain('2 protected entries not shown');
    expect(JSON.stringify(r)).not.toContain(ws.base);
  });

  it('descends with depth, never into a symlink, and truncates at max_entries', async () => {
    const deep = await ws.call('list_directory', { path: 'src', depth: 3 });
    expect(deep.structuredContent.entries.map((e: { path: string }) => e.path)).toEqual(['src/main.ts', 'src/util', 'src/util/strings.ts']);
    const cut = await ws.call('list_directory', { depth: 5, max_entries: 2 });
    expect(cut.structuredContent.entries).toHaveLength(2);
    expect(cut.structuredContent.truncated).toBe(true);
  });

  it('refuses a file', async () => {
    expect(textOf(await ws.call('list_directory', { path: 'README.md' }))).toMatch(/is a file, not a directory/);
  });
});

describe('search_files', () => {
  it('finds names by glob and by substring, never in protected places or through links', async () => {
    const glob = await ws.call('search_files', { pattern: '*.ts' });
    expect(glob.structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(['src/main.ts', 'src/util/strings.ts']);
    expect(glob.structuredContent.complete).toBe(true);
    const pathGlob = await ws.call('search_files', { pattern: 'src/**/*.ts' });
    expect(pathGlob.structuredContent.matches).toHaveLength(2);
    const sub = await ws.call('search_files', { pattern: 'STRING' });
    expect(sub.structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(['src/util/strings.ts']);
    const secret = await ws.call('search_files', { pattern: '*secret*' });
    expect(secret.structuredContent.matches).toEqual([]);
  });

  it('greps text content with line numbers, skipping binary files and protected files', async () => {
    const r = await ws.call('search_files', { content: 'todo' });
    expect(r.structuredContent.matches).toEqual([
      { path: 'README.md', type: 'file', lines: [{ line: 2, text: 'TODO: write docs' }] },
      { path: 'src/main.ts', type: 'file', lines: [{ line: 1, text: 'export const x = 1; // todo later' }] },
    ]);
    expect(r.structuredContent.skipped_files).toBe(1);
    const exact = await ws.call('search_files', { content: 'TODO', case_sensitive: true });
    expect(exact.structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(['README.md']);
  });

  it('stops at max_results and says so', async () => {
    const r = await ws.call('search_files', { pattern: '*', max_results: 2 });
    expect(r.structuredContent).toMatchObject({ complete: false, stopped: 'max_results' });
    expect(r.structuredContent.matches).toHaveLength(2);
    expect(textOf(r)).toMatch(/stopped early because max_results was reached/);
  });

  it('stops after looking at a bounded number of entries', async () => {
    for (let i = 0; i < 60; i++) await ws.write(`many/f${String(i).padStart(2, '0')}.txt`, 'x');
    const r = await ws.call('search_files', { pattern: '*.nothing' });
    expect(r.structuredContent).toMatchObject({ complete: false });
    expect(r.structuredContent.scanned).toBeLessThanOrEqual(50);
    await fs.rm(ws.file('many'), { recursive: true });
  });

  it('needs a pattern or content, and a valid glob', async () => {
    expect(textOf(await ws.call('search_files', {}))).toMatch(/Give a name pattern, a content string, or both/);
    expect(textOf(await ws.call('search_files', { pattern: '[abc' }))).toMatch(/not a valid glob/);
  });
});

describe('file_info', () => {
  it('describes a file and a directory', async () => {
    const r = await ws.call('file_info', { path: 'README.md' });
    expect(r.structuredContent).toMatchObject({ path: 'README.md', type: 'file', size: 27, permissions: 'rw-r-----', mode: '0640' });
    expect(Date.parse(r.structuredContent.modified)).not.toBeNaN();
    const d = await ws.call('file_info', { path: 'src' });
    expect(d.structuredContent.type).toBe('directory');
  });
});

describe('walk', () => {
  it('stops as soon as the call is aborted', async () => {
    const { walk } = await import('../../../src/toolsets/fs/walk.js');
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const entries = walk(
      ws.sandbox,
      ws.root,
      '.',
      { maxDepth: 5, maxPerDirectory: 100, signal: controller.signal },
      { denied: 0, truncatedDirectories: 0, unreadable: 0 },
    );
    await expect(entries.next()).rejects.toThrow('cancelled');
  });
});
