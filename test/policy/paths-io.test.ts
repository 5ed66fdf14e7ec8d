import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forceDescriptorPaths } from '../../src/policy/path-fd.js';
import { atomicWrite, EntryStats, movePath, openDirectory, openForRead, removePath } from '../../src/policy/path-io.js';
import { PathError, PathSandbox } from '../../src/policy/paths.js';

let base: string;
let root: string;
let outside: string;
let sandbox: PathSandbox;
const MAX = 1024 * 1024;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tw-io-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(outside);
  sandbox = PathSandbox.create({ roots: [root] });
});

afterEach(() => fs.rm(base, { recursive: true, force: true }));

const forWrite = (p: string) => sandbox.resolve(p, { forWrite: true, mustExist: false });
const bytes = (s: string) => Buffer.from(s);

async function expectRefusal(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PathError);
  expect((err as Error).message).toMatch(pattern);
  expect((err as Error).message).not.toContain(base);
}

describe('atomicWrite', () => {
  it('creates a file and leaves no temp file behind', async () => {
    expect(await atomicWrite(await forWrite('a.txt'), bytes('hello'), { maxBytes: MAX })).toEqual({ created: true });
    expect(await fs.readFile(path.join(root, 'a.txt'), 'utf8')).toBe('hello');
    expect(await fs.readdir(root)).toEqual(['a.txt']);
    expect((await fs.stat(path.join(root, 'a.txt'))).nlink).toBe(1);
  });

  it('refuses to clobber without overwrite, and replaces with it, keeping the mode', async () => {
    await fs.writeFile(path.join(root, 'a.txt'), 'old', { mode: 0o640 });
    await fs.chmod(path.join(root, 'a.txt'), 0o640);
    await expectRefusal(atomicWrite(await forWrite('a.txt'), bytes('new'), { maxBytes: MAX }), /already exists; pass overwrite: true/);
    expect(await fs.readFile(path.join(root, 'a.txt'), 'utf8')).toBe('old');
    expect(await atomicWrite(await forWrite('a.txt'), bytes('new'), { maxBytes: MAX, overwrite: true })).toEqual({ created: false });
    expect(await fs.readFile(path.join(root, 'a.txt'), 'utf8')).toBe('new');
    expect((await fs.stat(path.join(root, 'a.txt'))).mode & 0o777).toBe(0o640);
    expect(await fs.readdir(root)).toEqual(['a.txt']);
  });

  it('never writes through a symlink at the target, and leaves the link target untouched', async () => {
    const victim = path.join(outside, 'victim.txt');
    await fs.writeFile(victim, 'original');
    await fs.symlink(victim, path.join(root, 'link.txt'));
    // Resolution refuses it; so does the writer if a link is planted after resolution.
    await expectRefusal(forWrite('link.txt'), /symbolic link/);
    await fs.unlink(path.join(root, 'link.txt'));
    const resolved = await forWrite('link.txt');
    await fs.symlink(victim, path.join(root, 'link.txt'));
    await expectRefusal(atomicWrite(resolved, bytes('pwned'), { maxBytes: MAX, overwrite: true }), /symbolic link/);
    expect(await fs.readFile(victim, 'utf8')).toBe('original');
    expect((await fs.lstat(path.join(root, 'link.txt'))).isSymbolicLink()).toBe(true);
    expect(await fs.readdir(root)).toEqual(['link.txt']);
  });

  it('does not clobber a file that appears between resolution and write', async () => {
    const resolved = await forWrite('race.txt');
    await fs.writeFile(path.join(root, 'race.txt'), 'theirs');
    await expectRefusal(atomicWrite(resolved, bytes('mine'), { maxBytes: MAX }), /already exists/);
    expect(await fs.readFile(path.join(root, 'race.txt'), 'utf8')).toBe('theirs');
    expect(await fs.readdir(root)).toEqual(['race.txt']);
  });

  it('creates missing parents only when asked, one level at a time', async () => {
    await expectRefusal(atomicWrite(await forWrite('x/y/z.txt'), bytes('1'), { maxBytes: MAX }), /parent directory.*create_parents/);
    await atomicWrite(await forWrite('x/y/z.txt'), bytes('1'), { maxBytes: MAX, createParents: true });
    expect(await fs.readFile(path.join(root, 'x/y/z.txt'), 'utf8')).toBe('1');
  });

  it('refuses when a missing parent becomes a symlink out of the root before the write', async () => {
    const resolved = await forWrite('made/file.txt');
    await fs.symlink(outside, path.join(root, 'made'));
    await expectRefusal(atomicWrite(resolved, bytes('x'), { maxBytes: MAX, createParents: true }), /not a directory|changed/);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('enforces the size cap before touching the disk', async () => {
    await expectRefusal(atomicWrite(await forWrite('big.bin'), Buffer.alloc(11), { maxBytes: 10 }), /at most 10 bytes/);
    expect(await fs.readdir(root)).toEqual([]);
  });
});

describe('openForRead', () => {
  it('refuses a file swapped for a symlink after it was resolved', async () => {
    await fs.writeFile(path.join(root, 'a.txt'), 'mine');
    await fs.writeFile(path.join(outside, 's.txt'), 'secret');
    const resolved = await sandbox.resolve('a.txt');
    await fs.unlink(path.join(root, 'a.txt'));
    await fs.symlink(path.join(outside, 's.txt'), path.join(root, 'a.txt'));
    await expectRefusal(openForRead(resolved), /symbolic link/);
  });

  it('refuses a file replaced by another after it was resolved', async () => {
    await fs.writeFile(path.join(root, 'a.txt'), 'mine');
    const resolved = await sandbox.resolve('a.txt');
    await fs.rename(path.join(root, 'a.txt'), path.join(root, 'b.txt'));
    await fs.writeFile(path.join(root, 'a.txt'), 'other');
    await expectRefusal(openForRead(resolved), /changed while it was being opened/);
  });
});

describe('movePath', () => {
  it('moves without clobbering unless asked', async () => {
    await fs.writeFile(path.join(root, 'a.txt'), 'a');
    await fs.writeFile(path.join(root, 'b.txt'), 'b');
    const from = await sandbox.resolve('a.txt', { forWrite: true });
    await expectRefusal(movePath(from, await forWrite('b.txt')), /already exists/);
    await movePath(from, await forWrite('c.txt'));
    expect((await fs.readdir(root)).sort()).toEqual(['b.txt', 'c.txt']);
    expect((await fs.stat(path.join(root, 'c.txt'))).nlink).toBe(1);
    await movePath(await sandbox.resolve('c.txt', { forWrite: true }), await forWrite('b.txt'), { overwrite: true });
    expect(await fs.readFile(path.join(root, 'b.txt'), 'utf8')).toBe('a');
  });
});

/**
 * A directory on the path swapped for a link to an outside directory with
 * the same names, after the check and before the use: the use fails (or
 * stays inside), it never reads, writes, moves or deletes outside. Run with
 * held directories (Linux) and with the path fallback (other platforms).
 */
describe.each([
  ['held directories', undefined],
  ['the path fallback', false],
] as const)('a parent swapped for a link between check and use, with %s', (_label, mode) => {
  beforeEach(async () => {
    forceDescriptorPaths(mode);
    for (const dir of [path.join(root, 'd/sub'), path.join(outside, 'd/sub')]) await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(root, 'd/f.txt'), 'inside');
    await fs.writeFile(path.join(outside, 'd/f.txt'), 'OUTSIDE');
    await fs.writeFile(path.join(outside, 'd/sub/g.txt'), 'OUTSIDE');
  });
  afterEach(() => forceDescriptorPaths(undefined));

  /** Moves the real d aside and puts a link to outside/d in its place. */
  const swap = async () => {
    await fs.rename(path.join(root, 'd'), path.join(root, 'd-real'));
    await fs.symlink(path.join(outside, 'd'), path.join(root, 'd'));
  };
  const outsideUntouched = async () => {
    expect((await fs.readdir(path.join(outside, 'd'))).sort()).toEqual(['f.txt', 'sub']);
    expect(await fs.readdir(path.join(outside, 'd/sub'))).toEqual(['g.txt']);
    expect(await fs.readFile(path.join(outside, 'd/f.txt'), 'utf8')).toBe('OUTSIDE');
  };

  it('openForRead refuses, and reads nothing', async () => {
    const resolved = await sandbox.resolve('d/f.txt');
    await swap();
    await expectRefusal(openForRead(resolved), /changed/);
  });

  it('atomicWrite refuses, and leaves no file or temp file outside', async () => {
    const replace = await sandbox.resolve('d/f.txt', { forWrite: true });
    const create = await forWrite('d/new.txt');
    const deep = await forWrite('d/sub/new/x.txt');
    await swap();
    await expectRefusal(atomicWrite(replace, bytes('x'), { maxBytes: MAX, overwrite: true }), /changed/);
    await expectRefusal(atomicWrite(create, bytes('x'), { maxBytes: MAX }), /changed/);
    await expectRefusal(atomicWrite(deep, bytes('x'), { maxBytes: MAX, createParents: true }), /changed/);
    await outsideUntouched();
    expect((await fs.readdir(path.join(root, 'd-real'))).sort()).toEqual(['f.txt', 'sub']);
  });

  it('movePath refuses at either end', async () => {
    const from = await sandbox.resolve('d/f.txt', { forWrite: true });
    const into = await forWrite('d/sub/moved.txt');
    await fs.writeFile(path.join(root, 'top.txt'), 'top');
    const top = await sandbox.resolve('top.txt', { forWrite: true });
    await swap();
    await expectRefusal(movePath(from, await forWrite('elsewhere.txt')), /changed/);
    await expectRefusal(movePath(top, into), /changed/);
    await outsideUntouched();
    expect(await fs.readFile(path.join(root, 'top.txt'), 'utf8')).toBe('top');
  });

  it('removePath refuses a file or a tree whose parent was swapped', async () => {
    const file = await sandbox.resolve('d/f.txt', { forWrite: true });
    const tree = await sandbox.resolve('d/sub', { forWrite: true });
    await swap();
    await expectRefusal(removePath(file, { sandbox, maxEntries: 100 }), /changed/);
    await expectRefusal(removePath(tree, { sandbox, maxEntries: 100, recursive: true }), /changed/);
    await outsideUntouched();
  });

  it('removePath unlinks a link met inside a tree, never what it points to', async () => {
    await fs.writeFile(path.join(root, 'd/sub/mine.txt'), 'mine');
    const tree = await sandbox.resolve('d', { forWrite: true });
    // Swapped inside the tree after the check: sub becomes a link to outside/d/sub.
    await fs.rename(path.join(root, 'd/sub'), path.join(root, 'sub-real'));
    await fs.symlink(path.join(outside, 'd/sub'), path.join(root, 'd/sub'));
    await removePath(tree, { sandbox, maxEntries: 100, recursive: true });
    expect(await fs.readdir(root)).toEqual(['sub-real']);
    await outsideUntouched();
  });

  it('removePath stops at a protected name or past maxEntries inside a tree (the tool surveys first; this is the last line)', async () => {
    await fs.mkdir(path.join(root, 'p/q'), { recursive: true });
    await fs.writeFile(path.join(root, 'p/q/.env'), 'TOKEN=x');
    await expectRefusal(removePath(await sandbox.resolve('p', { forWrite: true }), { sandbox, maxEntries: 100, recursive: true }), /protected/);
    expect(await fs.readFile(path.join(root, 'p/q/.env'), 'utf8')).toBe('TOKEN=x');
    for (const n of ['1', '2', '3']) await fs.writeFile(path.join(root, 'd/sub', n), n);
    await expectRefusal(removePath(await sandbox.resolve('d/sub', { forWrite: true }), { sandbox, maxEntries: 1, recursive: true }), /more entries/);
    expect((await fs.readdir(path.join(root, 'd/sub'))).length).toBeGreaterThanOrEqual(2);
  });

  it('openDirectory and EntryStats do not list or stat through the swapped directory', async () => {
    await swap();
    await expect(openDirectory(sandbox, path.join(root, 'd'))).rejects.toThrow();
    const stats = new EntryStats(sandbox);
    try {
      expect(await stats.lstat(path.join(root, 'd/f.txt'))).toBeUndefined();
      expect((await stats.lstat(path.join(root, 'd')))?.isSymbolicLink()).toBe(true);
    } finally {
      await stats.close();
    }
  });
});
