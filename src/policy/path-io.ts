import fs, { constants } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { nodeCrypto } from '../lazy-crypto.js';
import { asPathError, PathError, quote } from './path-errors.js';
import type { ResolvedPath } from './paths.js';

/**
 * The only ways the toolsets open files: reads that cannot be tricked into
 * following a link or opening a different file than the one resolved, and
 * atomic writes that never follow a link at the target.
 */

/**
 * Opens a resolved regular file for reading. O_NOFOLLOW: if the name was
 * swapped for a symlink since it was resolved, the open fails instead of
 * following it; O_NONBLOCK: a FIFO swapped in cannot hang the call. The
 * opened file must be the very inode that was checked, with one link.
 */
export async function openForRead(target: ResolvedPath): Promise<{ handle: FileHandle; stat: fs.Stats }> {
  const checked = target.stat;
  if (!checked?.isFile()) throw new PathError(`${quote(target.display)} is not a regular file.`, checked?.isDirectory() ? 'EISDIR' : 'EPERM');
  let handle: FileHandle;
  try {
    handle = await fsp.open(target.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw asPathError(err, target.display, 'read');
  }
  const stat = await handle.stat();
  // Directories on the way are followed by open(); if one became a link since
  // resolution, the path no longer resolves to itself. (Node has no openat2
  // RESOLVE_BENEATH, so this narrows the race rather than closing it.)
  const still = await fsp.realpath(target.real).catch(() => undefined);
  if (!stat.isFile() || stat.ino !== checked.ino || stat.dev !== checked.dev || stat.nlink > 1 || still !== target.real) {
    await handle.close();
    throw new PathError(`${quote(target.display)} changed while it was being opened; it was not read. Try again.`, 'EAGAIN');
  }
  return { handle, stat };
}

export interface AtomicWriteOptions {
  /** Replace an existing file (default false: refuse to clobber). */
  overwrite?: boolean;
  /** Create missing parent directories (default false). */
  createParents?: boolean;
  maxBytes: number;
}

/**
 * Writes `data` to a resolved path atomically: a temp file with a random
 * name is created next to the target (O_EXCL | O_NOFOLLOW), filled, fsync'ed,
 * then renamed over the target, so readers see the old or the new content,
 * never half. rename() replaces a name and never follows a link there; the
 * target is also lstat'ed first and refused if it is a link. Without
 * overwrite, link() puts the file in place: it fails if the name appeared
 * meanwhile, where a check-then-rename would clobber it.
 */
export async function atomicWrite(target: ResolvedPath, data: Uint8Array, options: AtomicWriteOptions): Promise<{ created: boolean }> {
  const p = quote(target.display);
  if (data.byteLength > options.maxBytes) throw new PathError(`The content is ${data.byteLength} bytes; at most ${options.maxBytes} bytes may be written at once.`, 'EFBIG');
  await ensureParents(target, options.createParents ?? false);
  const dir = path.dirname(target.real);
  const existing = await lstatOrUndefined(target.real, target.display);
  if (existing) {
    if (existing.isSymbolicLink()) throw new PathError(`${p} is a symbolic link; it is never written through. Write to the file itself.`, 'ELOOP');
    if (existing.isDirectory()) throw new PathError(`${p} is a directory; choose a file name.`, 'EISDIR');
    if (!existing.isFile()) throw new PathError(`${p} is not a regular file; only regular files can be written.`, 'EPERM');
    if (existing.nlink > 1) throw new PathError(`${p} has ${existing.nlink} hard links, so it may be the same file as one outside the root; it is refused.`, 'EPERM');
    if (!options.overwrite) throw new PathError(`${p} already exists; pass overwrite: true to replace it.`, 'EEXIST');
  }
  const temp = path.join(dir, `.${path.basename(target.real).slice(0, 80)}.${nodeCrypto().randomBytes(8).toString('hex')}.tmp`);
  let placed = false;
  try {
    const handle = await fsp.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
    try {
      await handle.writeFile(data);
      // A replaced file keeps its permissions (chmod is not subject to the umask).
      if (existing) await handle.chmod(existing.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (existing) {
      const now = await lstatOrUndefined(target.real, target.display);
      if (now?.isSymbolicLink()) throw new PathError(`${p} became a symbolic link while being written; it was not replaced.`, 'ELOOP');
      await fsp.rename(temp, target.real);
    } else {
      await placeWithoutClobbering(temp, target.real);
      await fsp.unlink(temp).catch(() => undefined);
    }
    placed = true;
    await syncDirectory(dir);
    return { created: !existing };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST' && !(err instanceof PathError)) {
      throw new PathError(`${p} appeared while it was being written; it was not replaced. Pass overwrite: true to replace it.`, 'EEXIST');
    }
    throw asPathError(err, target.display, 'write');
  } finally {
    if (!placed) await fsp.unlink(temp).catch(() => undefined);
  }
}

/** link() fails with EEXIST if the name exists; file systems without hard links fall back to rename(). */
async function placeWithoutClobbering(temp: string, target: string): Promise<void> {
  try {
    await fsp.link(temp, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    if (await fsp.lstat(target).then(() => true, () => false)) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
    await fsp.rename(temp, target);
  }
}

/**
 * Creates the missing parents one level at a time (never recursive mkdir,
 * which would follow a link planted meanwhile), then checks that the parent
 * is exactly where it was resolved to be: no component became a link.
 */
export async function ensureParents(target: ResolvedPath, create: boolean): Promise<void> {
  const dir = path.dirname(target.real);
  if (target.missingDirs.length > 0) {
    if (!create) {
      throw new PathError(`The parent directory of ${quote(target.display)} does not exist; pass create_parents: true to create it.`, 'ENOENT');
    }
    for (const missing of target.missingDirs) {
      try {
        await fsp.mkdir(missing, { mode: 0o777 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw asPathError(err, target.display, 'create the parent directories of');
        const stat = await fsp.lstat(missing);
        if (!stat.isDirectory()) throw new PathError(`A parent of ${quote(target.display)} is not a directory (it was created meanwhile as something else).`, 'ENOTDIR');
      }
    }
  }
  const real = await fsp.realpath(dir).catch((err) => { throw asPathError(err, target.display, 'write'); });
  if (real !== dir) throw new PathError(`A parent directory of ${quote(target.display)} changed while it was being written (it is now a link); nothing was written.`, 'ELOOP');
}

async function lstatOrUndefined(file: string, display: string): Promise<fs.Stats | undefined> {
  try {
    return await fsp.lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw asPathError(err, display, 'write');
  }
}

/** Makes the rename durable; some file systems cannot fsync a directory, which is not an error. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await fsp.open(dir, constants.O_RDONLY | constants.O_DIRECTORY).catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}

export interface MoveOptions {
  /** Replace an existing file at the destination (default false). A directory is never replaced. */
  overwrite?: boolean;
  /** Create missing parent directories of the destination (default false). */
  createParents?: boolean;
}

/**
 * Renames a resolved path to another (both resolved with forWrite). Without
 * overwrite a file moves by link() then unlink(), so a destination that
 * appears meanwhile is never clobbered; a directory cannot be hard-linked
 * and moves by rename() after the check. A link at the destination is
 * refused, never replaced.
 */
export async function movePath(from: ResolvedPath, to: ResolvedPath, options: MoveOptions = {}): Promise<void> {
  const src = quote(from.display);
  const dst = quote(to.display);
  await ensureParents(to, options.createParents ?? false);
  const existing = await lstatOrUndefined(to.real, to.display);
  if (existing) {
    if (existing.isSymbolicLink()) throw new PathError(`${dst} is a symbolic link; it is never replaced. Choose another destination.`, 'ELOOP');
    if (!options.overwrite) throw new PathError(`${dst} already exists; pass overwrite: true to replace it.`, 'EEXIST');
    if (!existing.isFile()) throw new PathError(`${dst} is a directory; only a file can be replaced. Give the full destination path, including the new name.`, 'EISDIR');
    if (from.stat?.isDirectory()) throw new PathError(`${dst} is a file; a directory cannot replace it.`, 'ENOTDIR');
    if (existing.nlink > 1) throw new PathError(`${dst} has ${existing.nlink} hard links, so it may be the same file as one outside the root; it is refused.`, 'EPERM');
  }
  const now = await lstatOrUndefined(from.real, from.display);
  if (!now || now.ino !== from.stat?.ino || now.dev !== from.stat?.dev) throw new PathError(`${src} changed while it was being moved; nothing was moved. Try again.`, 'EAGAIN');
  try {
    if (options.overwrite || now.isDirectory()) {
      await fsp.rename(from.real, to.real);
    } else {
      await placeWithoutClobbering(from.real, to.real);
      // link() succeeded: the file has both names; drop the old one. (After the rename fallback it is already gone.)
      await fsp.unlink(from.real).catch((err: NodeJS.ErrnoException) => { if (err.code !== 'ENOENT') throw err; });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST' && !(err instanceof PathError)) {
      throw new PathError(`${dst} appeared while ${src} was being moved; nothing was replaced. Pass overwrite: true to replace it.`, 'EEXIST');
    }
    throw asPathError(err, from.display, `move to ${dst}`);
  }
  await syncDirectory(path.dirname(to.real));
  if (path.dirname(from.real) !== path.dirname(to.real)) await syncDirectory(path.dirname(from.real));
}

/** Fills `buf` from `position` (pread may return less than asked); returns the bytes read, fewer only at EOF. */
export async function readFully(handle: FileHandle, buf: Buffer, position: number): Promise<number> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await handle.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}
