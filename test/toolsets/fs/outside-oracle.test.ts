import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

/**
 * Issue 18, item 7: outside is outside. However a path points out of the
 * root through symbolic links (to an existing or a missing target, a file
 * or a directory, a loop, through a parent directory, a chain of links,
 * relative or absolute), every fs tool answers with one and the same
 * message, so no answer tells anything about what lies outside.
 */
let ws: Workspace;

beforeAll(async () => {
  ws = await workspace();
  const out = (rel: string) => path.join(ws.outside, rel);
  await ws.write('docs/readme.md', '# hi');
  await fs.mkdir(out('dir/sub'), { recursive: true });
  await fs.writeFile(out('dir/secret.txt'), 'secret');
  await fs.writeFile(out('data.csv'), 'n\n1\n');
  await fs.symlink(out('loop'), out('loop')); // a link to itself
  await fs.symlink(out('ping'), out('pong'));
  await fs.symlink(out('pong'), out('ping'));
  await fs.mkdir(out('locked'));
  await fs.writeFile(out('locked/x.txt'), 'x');
  await fs.chmod(out('locked'), 0o000);
  const links: Array<[string, string]> = [
    ['to-file', out('secret.txt')],
    ['to-missing', out('missing.txt')],
    ['to-dir', out('dir')],
    ['to-missing-dir', out('no/such/dir')],
    ['to-loop', out('loop')],
    ['to-ping', out('ping')],
    ['to-locked', out('locked')],
    ['to-csv', out('data.csv')],
    ['to-evil', ws.evil],
    ['relative', '../outside/secret.txt'],
    ['relative-missing', '../outside/missing.txt'],
    ['to-root-parent', '..'],
    ['to-slash', '/'],
  ];
  for (const [name, target] of links) await fs.symlink(target, ws.file(name));
  await fs.symlink('to-dir', ws.file('chain')); // inside link → inside link → outside
  await fs.mkdir(ws.file('inner'));
  await fs.symlink('../to-file', ws.file('inner/up'));
});

afterAll(async () => {
  await fs.chmod(path.join(ws.outside, 'locked'), 0o755).catch(() => undefined);
  await ws.cleanup();
});

/** Every way of pointing outside, as the path a tool is given. */
const OUTSIDE_PATHS = [
  'to-file',
  'to-missing',
  'to-dir',
  'to-missing-dir',
  'to-loop',
  'to-ping',
  'to-locked',
  'to-csv',
  'to-evil',
  'relative',
  'relative-missing',
  'to-root-parent',
  'to-slash',
  'chain',
  'inner/up',
  'to-dir/secret.txt',
  'to-dir/missing.txt',
  'to-dir/sub',
  'to-dir/sub/missing/deeper',
  'to-dir/secret.txt/x',
  'to-file/x',
  'to-missing/x',
  'to-missing-dir/x',
  'to-loop/x',
  'to-locked/x.txt',
  'to-locked/missing',
  'chain/secret.txt',
  'to-root-parent/outside/secret.txt',
  'to-slash/etc/passwd',
];

/** Each fs tool, with the outside path in each of its path arguments. */
const CALLS: Array<[string, (p: string) => Record<string, unknown>]> = [
  ['read_file', (p) => ({ path: p })],
  ['file_info', (p) => ({ path: p })],
  ['list_directory', (p) => ({ path: p })],
  ['search_files', (p) => ({ path: p, pattern: '*' })],
  ['analyze_csv', (p) => ({ path: p, operations: ['count'] })],
  ['write_file', (p) => ({ path: p, content: 'x' })],
  ['write_file', (p) => ({ path: p, content: 'x', overwrite: true, create_parents: true })],
  ['move_file', (p) => ({ source: p, destination: 'moved.txt' })],
  ['move_file', (p) => ({ source: 'docs/readme.md', destination: p, overwrite: true, create_parents: true })],
  ['delete_file', (p) => ({ path: p })],
  ['delete_file', (p) => ({ path: p, recursive: true })],
];

const ONE_MESSAGE = '"<path>" goes through a symbolic link that leads outside the allowed roots; it is refused. Use a path inside the root instead.';

describe('every way of pointing outside gets one message, from every fs tool', () => {
  for (const [tool, args] of CALLS) {
    it(`${tool} ${JSON.stringify(args('<path>'))}`, async () => {
      const seen = new Map<string, string[]>();
      for (const p of OUTSIDE_PATHS) {
        const result = await ws.call(tool, args(p));
        expect(result.isError, `${tool} ${p}`).toBe(true);
        const text = textOf(result).split(JSON.stringify(p).slice(1, -1)).join('<path>');
        seen.set(text, [...(seen.get(text) ?? []), p]);
      }
      expect(Object.fromEntries(seen)).toEqual({ [ONE_MESSAGE]: OUTSIDE_PATHS });
    });
  }

  it('left the outside and the root as they were', async () => {
    expect((await fs.readdir(ws.outside)).sort()).toEqual(['data.csv', 'dir', 'locked', 'loop', 'ping', 'pong', 'secret.txt']);
    expect((await fs.readdir(path.join(ws.outside, 'dir'))).sort()).toEqual(['secret.txt', 'sub']);
    expect(await fs.readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    expect(await fs.readFile(ws.file('docs/readme.md'), 'utf8')).toBe('# hi');
    expect(await fs.readdir(ws.root)).not.toContain('moved.txt');
  });
});

describe('links that stay inside still work', () => {
  it('reads through an inside link to a file and to a directory', async () => {
    await fs.symlink('docs/readme.md', ws.file('inside-file'));
    await fs.symlink('docs', ws.file('inside-dir'));
    await fs.symlink('../docs/readme.md', ws.file('inner/back'));
    expect(textOf(await ws.call('read_file', { path: 'inside-file' }))).toBe('# hi');
    expect(textOf(await ws.call('read_file', { path: 'inside-dir/readme.md' }))).toBe('# hi');
    expect(textOf(await ws.call('read_file', { path: 'inner/back' }))).toBe('# hi');
    expect((await ws.call('list_directory', { path: 'inside-dir' })).structuredContent.entries).toEqual([
      expect.objectContaining({ path: 'inside-dir/readme.md', type: 'file' }),
    ]);
  });
});
