import type fs from 'node:fs';
import { constants, type Dir, type OpenDirOptions } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { at, closeDir, codeError, lstatAt, openDirChain, sameFile, self, stillReal, type HeldDir } from './path-fd.js';
import { asPathError, PathError, quote } from './path-errors.js';
import { segmentsBelow } from './path-parse.js';
import { openParentOf } from './path-resolve.js';
import type { PathSandbox, ResolvedPath } from './paths.js';

export { atomicWrite, movePath, type AtomicWriteOptions, type MoveOptions } from './path-write.js';
export { removePath, MAX_REMOVE_DEPTH, type RemoveOptions } from './path-remove.js';

/**
 * The only ways the toolsets open files and directories. Each one walks the
 * resolved real path again from its root through held directories (every
 * component opened with O_NOFOLLOW, path-fd.ts) and verifies what it opened
 * through the descriptor, never by path again: a directory swapped for a
 * link after the check makes the call fail, it never reaches outside.
 */

/**
 * Opens a resolved regular file for reading, through its held parent.
 * O_NOFOLLOW: a link swapped in at the name is not followed; O_NONBLOCK: a
 * FIFO swapped in cannot hang the call. The opened file must be the very
 * inode that was checked, a regular file with one link (fstat).
 */
export async function openForRead(target: ResolvedPath): Promise<{ handle: FileHandle; stat: fs.Stats }> {
  const checked = target.stat;
  if (!checked?.isFile()) throw new PathError(`${quote(target.display)} is not a regular file.`, checked?.isDirectory() ? 'EISDIR' : 'EPERM');
  const { dir, name } = await openParentOf(target);
  let handle: FileHandle;
  try {
    handle = await fsp.open(at(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    await closeDir(dir);
    throw asPathError(err, target.display, 'read');
  }
  try {
    const stat = await handle.stat();
    // Without held directories (not Linux), a parent swapped for a link shows as a different real path.
    const moved = !(await stillReal(dir));
    if (!stat.isFile() || !sameFile(stat, checked) || stat.nlink > 1 || moved) {
      throw new PathError(`${quote(target.display)} changed while it was being opened; it was not read. Try again.`, 'EAGAIN');
    }
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw asPathError(err, target.display, 'read');
  } finally {
    await closeDir(dir);
  }
}

/**
 * Opens a directory inside the sandbox for listing (the walks of
 * list_directory, search_files and delete_file): reached from its root
 * through held directories, then opened as that held directory itself.
 * Throws (an fs error, not shown) when it is no longer a directory there.
 */
export async function openDirectory(sandbox: PathSandbox, real: string, options?: OpenDirOptions): Promise<Dir> {
  const root = sandbox.rootOf(real);
  if (!root) throw codeError('EACCES');
  const dir = await openDirChain(root.anchor, segmentsBelow(real, root.anchor));
  try {
    if (!(await stillReal(dir))) throw codeError('ESTALE');
    return await fsp.opendir(self(dir), options);
  } finally {
    await closeDir(dir);
  }
}

/**
 * lstat of entries met by a walk, each through its held parent directory
 * rather than by path (a path could lead through a directory swapped for a
 * link). Walks meet a directory's entries together, so the last parent is
 * kept open; close() releases it.
 */
export class EntryStats {
  private dir: HeldDir | undefined;
  private dirReal: string | undefined;

  constructor(private readonly sandbox: PathSandbox) {}

  /** The entry's own lstat, or undefined when it cannot be reached (gone, or its directory changed). */
  async lstat(real: string): Promise<fs.Stats | undefined> {
    const parent = path.dirname(real);
    if (parent !== this.dirReal) {
      await this.close();
      this.dirReal = parent;
      const root = this.sandbox.rootOf(parent);
      if (root) this.dir = await openDirChain(root.anchor, segmentsBelow(parent, root.anchor)).catch(() => undefined);
    }
    if (!this.dir) return undefined;
    return lstatAt(this.dir, path.basename(real)).catch(() => undefined);
  }

  async close(): Promise<void> {
    await closeDir(this.dir);
    this.dir = undefined;
    this.dirReal = undefined;
  }
}

/** One entry's own lstat through its held parent (EntryStats for a single entry). */
export async function lstatInSandbox(sandbox: PathSandbox, real: string): Promise<fs.Stats | undefined> {
  const stats = new EntryStats(sandbox);
  try {
    return await stats.lstat(real);
  } finally {
    await stats.close();
  }
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
