import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathError, PathSandbox } from '../../src/policy/paths.js';
import { ToolError } from '../../src/server/tool.js';

let base: string;
let root: string;
let outside: string;
let sandbox: PathSandbox;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tw-paths-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(outside);
  await fs.mkdir(path.join(base, 'root-evil'));
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
  await fs.mkdir(path.join(root, 'docs'));
  await fs.writeFile(path.join(root, 'docs', 'a.txt'), 'a');
  sandbox = PathSandbox.create({ roots: [root] });
});

afterEach(() => fs.rm(base, { recursive: true, force: true }));

/** Resolving must fail with a PathError (a ToolError) whose text never shows the temp directory. */
async function refused(input: string, pattern: RegExp, options = {}): Promise<PathError> {
  const err = await sandbox.resolve(input, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PathError);
  expect(err).toBeInstanceOf(ToolError);
  const message = (err as PathError).message;
  expect(message).toMatch(pattern);
  expect(message).not.toContain(base);
  return err as PathError;
}

describe('PathSandbox.resolve: what is inside', () => {
  it('resolves a relative path to its real path and shows it relative', async () => {
    const r = await sandbox.resolve('docs/a.txt');
    expect(r.real).toBe(path.join(root, 'docs', 'a.txt'));
    expect(r.display).toBe('docs/a.txt');
    expect(r.stat?.isFile()).toBe(true);
  });

  it('treats "", "." and "./docs/./a.txt" as paths from the root', async () => {
    expect((await sandbox.resolve('.')).real).toBe(root);
    expect((await sandbox.resolve('')).display).toBe('.');
    expect((await sandbox.resolve('./docs/./a.txt')).display).toBe('docs/a.txt');
  });

  it('accepts an absolute path inside the root, through the configured or the real path', async () => {
    expect((await sandbox.resolve(path.join(root, 'docs/a.txt'))).display).toBe('docs/a.txt');
    await fs.symlink(root, path.join(base, 'alias'));
    const viaAlias = PathSandbox.create({ roots: [path.join(base, 'alias')] });
    expect(viaAlias.roots[0].real).toBe(root);
    expect((await viaAlias.resolve(path.join(base, 'alias', 'docs/a.txt'))).real).toBe(path.join(root, 'docs/a.txt'));
  });

  it('follows a symlink that stays inside the root', async () => {
    await fs.symlink('docs/a.txt', path.join(root, 'link'));
    expect((await sandbox.resolve('link')).real).toBe(path.join(root, 'docs/a.txt'));
  });

  it('resolves a new file through its deepest existing ancestor and lists the missing directories', async () => {
    const r = await sandbox.resolve('docs/new/deeper/file.txt', { forWrite: true, mustExist: false });
    expect(r.real).toBe(path.join(root, 'docs/new/deeper/file.txt'));
    expect(r.missingDirs).toEqual([path.join(root, 'docs/new'), path.join(root, 'docs/new/deeper')]);
    expect(r.stat).toBeUndefined();
  });
});

describe('PathSandbox.resolve: links are followed by their text, from the root through held directories', () => {
  it('binds resolution to held directories on Linux', () => {
    expect(sandbox.boundToDescriptors).toBe(process.platform === 'linux');
  });

  it('follows relative links with "..", chains of links, and absolute links into the root by its real or configured path', async () => {
    await fs.mkdir(path.join(root, 'deep/er'), { recursive: true });
    await fs.symlink('../../docs/a.txt', path.join(root, 'deep/er/up'));
    await fs.symlink('deep/er/up', path.join(root, 'chain'));
    await fs.symlink(path.join(root, 'docs'), path.join(root, 'abs'));
    expect((await sandbox.resolve('deep/er/up')).real).toBe(path.join(root, 'docs/a.txt'));
    expect((await sandbox.resolve('chain')).real).toBe(path.join(root, 'docs/a.txt'));
    expect((await sandbox.resolve('abs/a.txt')).real).toBe(path.join(root, 'docs/a.txt'));
    await fs.symlink(root, path.join(base, 'alias'));
    const viaAlias = PathSandbox.create({ roots: [path.join(base, 'alias')] });
    await fs.symlink(path.join(base, 'alias', 'docs'), path.join(root, 'via-alias'));
    expect((await viaAlias.resolve('via-alias/a.txt')).real).toBe(path.join(root, 'docs/a.txt'));
  });

  it('follows a link into another root, and reports that root', async () => {
    const multi = PathSandbox.create({ roots: [root, { path: outside, name: 'data' }] });
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'to-data'));
    const r = await multi.resolve('root/to-data');
    expect(r.real).toBe(path.join(outside, 'secret.txt'));
    expect(r.root.name).toBe('data');
  });

  it('refuses a link whose ".." climbs above the root, even one that would come back in', async () => {
    await fs.symlink('../root/docs/a.txt', path.join(root, 'out-and-in'));
    await refused('out-and-in', /leads outside/);
  });

  it('refuses a link through a protected directory, even one that leaves it again by ".."', async () => {
    await fs.mkdir(path.join(root, '.git'));
    await fs.symlink('.git/../docs/a.txt', path.join(root, 'sneaky'));
    await refused('sneaky', /protected name/);
  });

  it('refuses more than 40 links in a row, as the kernel does', async () => {
    await fs.symlink('docs/a.txt', path.join(root, 'l0'));
    for (let i = 1; i <= 41; i++) await fs.symlink(`l${i - 1}`, path.join(root, `l${i}`));
    expect((await sandbox.resolve('l39')).real).toBe(path.join(root, 'docs/a.txt'));
    await refused('l41', /symbolic link that is refused \(a loop/);
  });

  it('reaches a root nested in another from the outer one, through held directories', async () => {
    await fs.mkdir(path.join(root, 'inner'));
    await fs.writeFile(path.join(root, 'inner', 'i.txt'), 'i');
    const nested = PathSandbox.create({ roots: [root, { path: path.join(root, 'inner'), name: 'inner' }] });
    expect(nested.roots.map((r) => r.anchor)).toEqual([root, root]);
    const r = await nested.resolve('inner/i.txt');
    expect(r.real).toBe(path.join(root, 'inner/i.txt'));
    // The outer root's "inner" swapped for a link: the nested root is not reached through it.
    await fs.rename(path.join(root, 'inner'), path.join(root, 'inner-moved'));
    await fs.symlink(outside, path.join(root, 'inner'));
    await expect(nested.resolve('inner/secret.txt')).rejects.toThrow(/root of "inner\/secret.txt" is missing or was replaced/);
  });
});

describe('PathSandbox.resolve: refusals', () => {
  it('refuses ".." anywhere, even where it would stay inside', async () => {
    await refused('../outside/secret.txt', /"\.\." segments/);
    await refused('docs/../docs/a.txt', /"\.\." segments/);
  });

  it('refuses NUL bytes and control characters', async () => {
    await refused('docs/a.txt\0.png', /NUL byte/);
    await refused('docs/a\n.txt', /control characters/);
  });

  it('refuses Windows drive letters, backslashes and UNC paths', async () => {
    await refused('C:\\Windows\\system.ini', /Windows-style/);
    await refused('c:/x', /Windows-style/);
    await refused('\\\\server\\share\\x', /Windows-style/);
    await refused('//server/share/x', /Windows-style/);
    await refused('docs\\a.txt', /Windows-style/);
  });

  it('refuses absolute paths outside the roots, including a sibling whose name extends the root', async () => {
    await refused(path.join(outside, 'secret.txt'), /absolute path outside the allowed roots/);
    await refused(path.join(base, 'root-evil'), /absolute path outside/);
    await refused('/etc/passwd', /absolute path outside/);
  });

  it('refuses a symlink that leaves the root, for reading and as a parent for writing', async () => {
    await fs.symlink(outside, path.join(root, 'escape'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    await refused('escape/secret.txt', /symbolic link that leads outside/);
    await refused('secret-link', /symbolic link that leads outside/);
    await refused('escape/new.txt', /symbolic link that leads outside/, { forWrite: true, mustExist: false });
  });

  it('refuses a symlink to the sibling root-evil (containment is by whole segments)', async () => {
    await fs.symlink(path.join(base, 'root-evil'), path.join(root, 'evil'));
    await refused('evil', /leads outside/);
  });

  it('refuses a dangling symlink, which a write would create outside the root', async () => {
    // Pointing outside: the one outside answer, which says nothing of whether the target exists (issue 18, item 7).
    await fs.symlink(path.join(outside, 'planted.txt'), path.join(root, 'dangling'));
    await refused('dangling', /symbolic link that leads outside/, { forWrite: true, mustExist: false });
    await refused('dangling', /symbolic link that leads outside/);
    await fs.symlink(path.join(outside, 'nodir'), path.join(root, 'dangling-dir'));
    await refused('dangling-dir/x.txt', /symbolic link that leads outside/, { forWrite: true, mustExist: false });
    // Pointing inside, at nothing: refused too, a write would create the link's target.
    await fs.symlink('docs/planted.txt', path.join(root, 'dangling-in'));
    await fs.symlink('nodir', path.join(root, 'dangling-in-dir'));
    await refused('dangling-in', /is a symbolic link/, { forWrite: true, mustExist: false });
    await refused('dangling-in', /symbolic link whose target does not exist/);
    await refused('dangling-in-dir/x.txt', /symbolic link whose target does not exist/, { forWrite: true, mustExist: false });
    expect(await fs.readdir(outside)).toEqual(['secret.txt']);
  });

  it('refuses a symlink as the target of a write, even one pointing inside', async () => {
    await fs.symlink('docs/a.txt', path.join(root, 'inner-link'));
    await refused('inner-link', /is a symbolic link/, { forWrite: true, mustExist: false });
  });

  it('refuses symlink loops', async () => {
    await fs.symlink('loop-b', path.join(root, 'loop-a'));
    await fs.symlink('loop-a', path.join(root, 'loop-b'));
    await refused('loop-a/x', /symbolic link/);
  });

  it('refuses a hard link (it may alias a file outside), unless only unlinking', async () => {
    await fs.link(path.join(outside, 'secret.txt'), path.join(root, 'hard.txt'));
    await refused('hard.txt', /2 hard links/);
    await refused('hard.txt', /hard links/, { forWrite: true, mustExist: false });
    expect((await sandbox.resolve('hard.txt', { forWrite: true, allowHardLinks: true })).stat?.nlink).toBe(2);
  });

  it('refuses FIFOs and sockets', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    await refused('pipe', /not a regular file or directory/);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'sock'), resolve));
    try {
      await refused('sock', /not a regular file or directory/);
    } finally {
      server.close();
    }
  });

  it('refuses a link to a device file (it leads outside before its type matters)', async () => {
    // /dev/null itself is outside; a link to it is refused before its type matters.
    await fs.symlink('/dev/null', path.join(root, 'null'));
    await refused('null', /leads outside/);
  });

  it('refuses a path that does not exist when it must, naming it relative', async () => {
    const err = await refused('docs/missing.txt', /"docs\/missing\.txt" does not exist/);
    expect(err.code).toBe('ENOENT');
  });

  it('refuses a file used as a directory', async () => {
    await refused('docs/a.txt/x', /is a file, not a directory/);
  });

  it('refuses writing, moving or deleting a root', async () => {
    await refused('.', /root directory/, { forWrite: true });
  });
});

describe('PathSandbox: protected names', () => {
  it.each([
    ['.env'],
    ['.env.local'],
    ['config/.env.production'],
    ['server.pem'],
    ['tls/private.key'],
    ['id_rsa'],
    ['keys/id_rsa.pub'],
    ['credentials.json'],
    ['.git'],
    ['.git/config'],
    ['sub/.git/hooks/pre-commit'],
    ['.ENV'],
    ['Server.PEM'],
  ])('refuses %s by default', async (name) => {
    await refused(name, /protected name/, { mustExist: false, forWrite: true });
  });

  it('refuses a protected file reached through a symlink with an innocent name', async () => {
    await fs.writeFile(path.join(root, '.env'), 'TOKEN=x');
    await fs.symlink('.env', path.join(root, 'settings.txt'));
    await refused('settings.txt', /protected name/);
  });

  it('answers a link to a protected name the same whether it exists or not', async () => {
    await fs.symlink('.env', path.join(root, 'settings.txt'));
    await fs.symlink('docs/missing.pem', path.join(root, 'cert.txt'));
    await refused('settings.txt', /protected name/);
    await refused('cert.txt', /protected name/);
    await refused('settings.txt', /is a symbolic link/, { forWrite: true, mustExist: false });
  });

  it('adds configured globs to the defaults, or replaces them', async () => {
    await fs.writeFile(path.join(root, 'notes.secret'), 'x');
    await fs.writeFile(path.join(root, 'server.pem'), 'x');
    const added = PathSandbox.create({ roots: [root], deny: ['*.secret', 'private/**'] });
    await expect(added.resolve('notes.secret')).rejects.toThrow(/protected name/);
    await expect(added.resolve('private/x.txt', { mustExist: false, forWrite: true })).rejects.toThrow(/protected name/);
    await expect(added.resolve('server.pem')).rejects.toThrow(/protected name/);
    const replaced = PathSandbox.create({ roots: [root], deny: ['*.secret'], denyMode: 'replace' });
    expect((await replaced.resolve('server.pem')).display).toBe('server.pem');
    expect(replaced.denyGlobs).toEqual(['*.secret']);
  });
});

describe('PathSandbox.create', () => {
  it('refuses a missing root by default and creates it when asked', () => {
    expect(() => PathSandbox.create({ roots: [path.join(base, 'nope')] })).toThrow(/does not exist/);
    const made = PathSandbox.create({ roots: ['made/here'], cwd: base, missingRoots: 'create' });
    expect(made.roots[0].real).toBe(path.join(base, 'made/here'));
  });

  it('addresses several roots by name, and shows paths with the root name', async () => {
    const multi = PathSandbox.create({ roots: [root, { path: outside, name: 'data' }] });
    expect(multi.roots.map((r) => r.name)).toEqual(['root', 'data']);
    expect((await multi.resolve('data/secret.txt')).display).toBe('data/secret.txt');
    expect((await multi.resolve('root/docs/a.txt')).real).toBe(path.join(root, 'docs/a.txt'));
    expect(multi.isRootList('.')).toBe(true);
    await expect(multi.resolve('docs/a.txt')).rejects.toThrow(/start with the name of a root \("root", "data"\)/);
  });

  it('refuses duplicate or malformed root names', () => {
    expect(() =>
      PathSandbox.create({
        roots: [
          { path: root, name: 'a' },
          { path: outside, name: 'a' },
        ],
      }),
    ).toThrow(/two roots/);
    expect(() => PathSandbox.create({ roots: [{ path: root, name: '../x' }] })).toThrow(/root name/);
  });
});
