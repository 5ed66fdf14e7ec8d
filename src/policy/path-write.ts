import { constants } from 'node:fs';
import fsp from 'node:fs/promises';
import { nodeCrypto } from '../runtime/lazy-crypto.js';
import { at, closeDir, lstatAt, sameFile, stillReal, syncDir, type HeldDir } from './path-fd.js';
import { asPathError, PathError, quote } from './path-errors.js';
import { openParentOf } from './path-resolve.js';
import type { ResolvedPath } from './paths.js';

export interface AtomicWriteOptions {
  /** Replace an existing file (default false: refuse to clobber). */
  overwrite?: boolean;
  /** Create missing parent directories (default false). */
  createParents?: boolean;
  maxBytes: number;
}

/**
 * Writes `data` to a resolved path atomically, entirely through the held
 * parent directory (path-resolve.ts openParentOf): a temp file with a random
 * name is created there (O_CREAT | O_EXCL | O_NOFOLLOW), filled, fsync'ed,
 * then renamed over the target, so readers see the old or the new content,
 * never half. rename() replaces a name and never follows a link there; the
 * target is also lstat'ed first and refused if it is a link. Without
 * overwrite, link() puts the file in place: it fails if the name appeared
 * meanwhile, where a check-then-rename would clobber it. The temp file is
 * removed through the same held directory if anything fails, so neither it
 * nor the file can land anywhere but in the directory that was checked.
 */
export async function atomicWrite(target: ResolvedPath, data: Uint8Array, options: AtomicWriteOptions): Promise<{ created: boolean }> {
  const p = quote(target.display);
  if (data.byteLength > options.maxBytes)
    throw new PathError(`The content is ${data.byteLength} bytes; at most ${options.maxBytes} bytes may be written at once.`, 'EFBIG');
  const { dir, name } = await openParentOf(target, { create: options.createParents ?? false });
  let temp: string | undefined;
  let placed = false;
  try {
    if (!(await stillReal(dir))) throw parentMoved(target.display);
    const existing = await lstatAt(dir, name);
    if (existing) {
      if (existing.isSymbolicLink()) throw new PathError(`${p} is a symbolic link; it is never written through. Write to the file itself.`, 'ELOOP');
      if (existing.isDirectory()) throw new PathError(`${p} is a directory; choose a file name.`, 'EISDIR');
      if (!existing.isFile()) throw new PathError(`${p} is not a regular file; only regular files can be written.`, 'EPERM');
      if (existing.nlink > 1)
        throw new PathError(`${p} has ${existing.nlink} hard links, so it may be the same file as one outside the root; it is refused.`, 'EPERM');
      if (!options.overwrite) throw new PathError(`${p} already exists; pass overwrite: true to replace it.`, 'EEXIST');
    }
    temp = tempName(name);
    const handle = await fsp.open(at(dir, temp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
    try {
      await handle.writeFile(data);
      // A replaced file keeps its permissions (chmod is not subject to the umask).
      if (existing) await handle.chmod(existing.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (existing) {
      const now = await lstatAt(dir, name);
      if (now?.isSymbolicLink()) throw new PathError(`${p} became a symbolic link while being written; it was not replaced.`, 'ELOOP');
      await fsp.rename(at(dir, temp), at(dir, name));
    } else {
      await placeWithoutClobbering(dir, temp, dir, name);
      await fsp.unlink(at(dir, temp)).catch(() => undefined);
    }
    placed = true;
    await syncDir(dir);
    return { created: !existing };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST' && !(err instanceof PathError)) {
      throw new PathError(`${p} appeared while it was being written; it was not replaced. Pass overwrite: true to replace it.`, 'EEXIST');
    }
    throw asPathError(err, target.display, 'write');
  } finally {
    if (!placed && temp !== undefined) await fsp.unlink(at(dir, temp)).catch(() => undefined);
    await closeDir(dir);
  }
}

/** `.name.<random>.tmp`, with only safe characters of the name and well under any file system's name limit. */
function tempName(name: string): string {
  const hint = name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60);
  return `.${hint}.${nodeCrypto().randomBytes(8).toString('hex')}.tmp`;
}

/** link() fails with EEXIST if the name exists; file systems without hard links fall back to rename(). */
async function placeWithoutClobbering(fromDir: HeldDir, from: string, toDir: HeldDir, to: string): Promise<void> {
  try {
    await fsp.link(at(fromDir, from), at(toDir, to));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    if (await lstatAt(toDir, to)) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
    await fsp.rename(at(fromDir, from), at(toDir, to));
  }
}

function parentMoved(display: string): PathError {
  return new PathError(`A parent directory of ${quote(display)} changed while it was being used (it is now a link); nothing was done.`, 'ELOOP');
}

export interface MoveOptions {
  /** Replace an existing file at the destination (default false). A directory is never replaced. */
  overwrite?: boolean;
  /** Create missing parent directories of the destination (default false). */
  createParents?: boolean;
}

/**
 * Renames a resolved path to another (both resolved with forWrite), between
 * their held parent directories. The source must still be the inode that
 * was checked. Without overwrite a file moves by link() then unlink(), so a
 * destination that appears meanwhile is never clobbered; a directory cannot
 * be hard-linked and moves by rename() after the check. A link at the
 * destination is refused, never replaced.
 */
export async function movePath(from: ResolvedPath, to: ResolvedPath, options: MoveOptions = {}): Promise<void> {
  const src = quote(from.display);
  const dst = quote(to.display);
  const target = await openParentOf(to, { create: options.createParents ?? false });
  let source: { dir: HeldDir; name: string } | undefined;
  try {
    if (!(await stillReal(target.dir))) throw parentMoved(to.display);
    const existing = await lstatAt(target.dir, target.name).catch((err) => {
      throw asPathError(err, to.display, 'write');
    });
    if (existing) {
      if (existing.isSymbolicLink()) throw new PathError(`${dst} is a symbolic link; it is never replaced. Choose another destination.`, 'ELOOP');
      if (!options.overwrite) throw new PathError(`${dst} already exists; pass overwrite: true to replace it.`, 'EEXIST');
      if (!existing.isFile())
        throw new PathError(`${dst} is a directory; only a file can be replaced. Give the full destination path, including the new name.`, 'EISDIR');
      if (from.stat?.isDirectory()) throw new PathError(`${dst} is a file; a directory cannot replace it.`, 'ENOTDIR');
      if (existing.nlink > 1)
        throw new PathError(`${dst} has ${existing.nlink} hard links, so it may be the same file as one outside the root; it is refused.`, 'EPERM');
    }
    source = await openParentOf(from);
    if (!(await stillReal(source.dir))) throw parentMoved(from.display);
    const now = await lstatAt(source.dir, source.name).catch(() => undefined);
    if (!now || !from.stat || !sameFile(now, from.stat))
      throw new PathError(`${src} changed while it was being moved; nothing was moved. Try again.`, 'EAGAIN');
    try {
      if (options.overwrite || now.isDirectory()) {
        await fsp.rename(at(source.dir, source.name), at(target.dir, target.name));
      } else {
        await placeWithoutClobbering(source.dir, source.name, target.dir, target.name);
        // link() succeeded: the file has both names; drop the old one. (After the rename fallback it is already gone.)
        await fsp.unlink(at(source.dir, source.name)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        });
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && !(err instanceof PathError)) {
        throw new PathError(`${dst} appeared while ${src} was being moved; nothing was replaced. Pass overwrite: true to replace it.`, 'EEXIST');
      }
      throw asPathError(err, from.display, `move to ${dst}`);
    }
    await syncDir(target.dir);
    if (target.dir.real !== source.dir.real) await syncDir(source.dir);
  } finally {
    await closeDir(source?.dir);
    await closeDir(target.dir);
  }
}
