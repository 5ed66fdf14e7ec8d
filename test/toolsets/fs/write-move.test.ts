import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

let ws: Workspace;

beforeEach(async () => {
  ws = await workspace({ sandbox: { maxWriteBytes: 1000 } });
});

afterEach(() => ws.cleanup());

describe('write_file', () => {
  it('creates a file atomically, with structured output, leaving no temp file', async () => {
    const r = await ws.call('write_file', { path: 'out.txt', content: 'hello' });
    expect(r.structuredContent).toEqual({ path: 'out.txt', bytes: 5, created: true });
    expect(textOf(r)).toBe('Created "out.txt" (5 bytes).');
    expect(await fs.readFile(ws.file('out.txt'), 'utf8')).toBe('hello');
    expect(await fs.readdir(ws.root)).toEqual(['out.txt']);
  });

  it('refuses to clobber unless overwrite is true', async () => {
    await ws.write('out.txt', 'old');
    const refused = await ws.call('write_file', { path: 'out.txt', content: 'new' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('"out.txt" already exists; pass overwrite: true to replace it.');
    expect(await fs.readFile(ws.file('out.txt'), 'utf8')).toBe('old');
    const r = await ws.call('write_file', { path: 'out.txt', content: 'new', overwrite: true });
    expect(r.structuredContent.created).toBe(false);
    expect(await fs.readFile(ws.file('out.txt'), 'utf8')).toBe('new');
    expect(await fs.readdir(ws.root)).toEqual(['out.txt']);
  });

  it('creates parent directories only with create_parents', async () => {
    const refused = await ws.call('write_file', { path: 'a/b/c.txt', content: 'x' });
    expect(textOf(refused)).toMatch(/parent directory of "a\/b\/c\.txt" does not exist; pass create_parents: true/);
    await ws.call('write_file', { path: 'a/b/c.txt', content: 'x', create_parents: true });
    expect(await fs.readFile(ws.file('a/b/c.txt'), 'utf8')).toBe('x');
  });

  it('writes base64 bytes, and refuses invalid base64', async () => {
    await ws.call('write_file', { path: 'bytes.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' });
    expect([...(await fs.readFile(ws.file('bytes.bin')))]).toEqual([0, 1, 2, 255]);
    expect(textOf(await ws.call('write_file', { path: 'bad.bin', content: 'not base64!', encoding: 'base64' }))).toMatch(/not valid base64/);
  });

  it('refuses content over the write cap, writing nothing', async () => {
    const r = await ws.call('write_file', { path: 'big.txt', content: 'x'.repeat(1001) });
    expect(textOf(r)).toMatch(/1001 bytes; at most 1000 bytes/);
    expect(await fs.readdir(ws.root)).toEqual([]);
  });

  it('refuses a symlink at the target and leaves its target untouched', async () => {
    await fs.symlink(path.join(ws.outside, 'secret.txt'), ws.file('link.txt'));
    const r = await ws.call('write_file', { path: 'link.txt', content: 'pwned', overwrite: true });
    expect(r.isError).toBe(true);
    expect(await fs.readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    expect((await fs.lstat(ws.file('link.txt'))).isSymbolicLink()).toBe(true);
    expect(await fs.readdir(ws.root)).toEqual(['link.txt']);
  });

  it('refuses to write over a directory', async () => {
    await fs.mkdir(ws.file('dir'));
    expect(textOf(await ws.call('write_file', { path: 'dir', content: 'x', overwrite: true }))).toMatch(/"dir" is a directory/);
  });
});

describe('move_file', () => {
  it('renames a file and reports both paths', async () => {
    await ws.write('a.txt', 'a');
    const r = await ws.call('move_file', { source: 'a.txt', destination: 'docs/b.txt', create_parents: true });
    expect(r.structuredContent).toEqual({ source: 'a.txt', destination: 'docs/b.txt', type: 'file' });
    expect(await fs.readFile(ws.file('docs/b.txt'), 'utf8')).toBe('a');
    await expect(fs.access(ws.file('a.txt'))).rejects.toThrow();
  });

  it('refuses to replace an existing file unless overwrite, and never replaces a directory', async () => {
    await ws.write('a.txt', 'a');
    await ws.write('b.txt', 'b');
    await fs.mkdir(ws.file('dir'));
    expect(textOf(await ws.call('move_file', { source: 'a.txt', destination: 'b.txt' }))).toMatch(/already exists; pass overwrite: true/);
    expect(textOf(await ws.call('move_file', { source: 'a.txt', destination: 'dir', overwrite: true }))).toMatch(/is a directory; only a file can be replaced/);
    await ws.call('move_file', { source: 'a.txt', destination: 'b.txt', overwrite: true });
    expect(await fs.readFile(ws.file('b.txt'), 'utf8')).toBe('a');
  });

  it('moves a directory, but not into itself', async () => {
    await ws.write('d/x.txt', 'x');
    expect(textOf(await ws.call('move_file', { source: 'd', destination: 'd/sub', create_parents: true }))).toMatch(/into itself/);
    const r = await ws.call('move_file', { source: 'd', destination: 'e' });
    expect(r.structuredContent.type).toBe('directory');
    expect(await fs.readFile(ws.file('e/x.txt'), 'utf8')).toBe('x');
  });

  it('refuses to move a symlink or onto one', async () => {
    await ws.write('a.txt', 'a');
    await fs.symlink('a.txt', ws.file('link'));
    expect(textOf(await ws.call('move_file', { source: 'link', destination: 'moved' }))).toMatch(/symbolic link/);
    expect(textOf(await ws.call('move_file', { source: 'a.txt', destination: 'link', overwrite: true }))).toMatch(/symbolic link/);
    expect(await fs.readFile(ws.file('a.txt'), 'utf8')).toBe('a');
  });
});
