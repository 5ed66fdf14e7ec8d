import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { at, closeDir, lstatAt, openChildDir, sameFile, self, stillReal, type HeldDir } from './path-fd.js';
import { changedError, PathError, quote } from './path-errors.js';
import { openParentOf } from './path-resolve.js';
import type { PathSandbox, ResolvedPath } from './paths.js';

/** Directory levels a recursive removal descends: one held descriptor per level. */
export const MAX_REMOVE_DEPTH = 128;

export interface RemoveOptions {
  /** Remove a directory and everything in it (default false: files only). */
  recursive?: boolean;
  /** Decides protected names inside a directory being removed. */
  sandbox: PathSandbox;
  /** Most entries a recursive removal deletes before it stops. */
  maxEntries: number;
}

/**
 * Deletes a resolved path (forWrite) through its held parent directory: it
 * must still be the inode that was checked. A directory is emptied through
 * held descriptors, each subdirectory opened with O_NOFOLLOW from its parent
 * and each entry unlinked or removed by name in the directory that holds it,
 * never by a path string; a link inside is unlinked, never followed. So a
 * directory swapped for a link during the removal makes it fail, never
 * reach outside. It refuses protected names, other file systems (a mount
 * point) and more than `maxEntries` entries or MAX_REMOVE_DEPTH levels, and
 * then stops with the part already removed gone.
 */
export async function removePath(target: ResolvedPath, options: RemoveOptions): Promise<void> {
  const { dir, name } = await openParentOf(target);
  try {
    const now = await lstatAt(dir, name);
    if (!now || !target.stat || !sameFile(now, target.stat) || !(await stillReal(dir))) throw changedError(target.display, 'nothing was deleted');
    if (!now.isDirectory()) {
      await fsp.unlink(at(dir, name));
      return;
    }
    if (!options.recursive) throw new PathError(`${quote(target.display)} is a directory; pass recursive: true to delete it.`, 'EISDIR');
    const held = await openChildDir(dir, name, now);
    try {
      await emptyDirectory(held, now, 1, { ...options, display: target.display, left: options.maxEntries });
    } finally {
      await closeDir(held);
    }
    await fsp.rmdir(at(dir, name));
  } finally {
    await closeDir(dir);
  }
}

interface Removal extends RemoveOptions {
  display: string;
  /** Entries that may still be removed. */
  left: number;
}

async function emptyDirectory(dir: HeldDir, top: fs.Stats, depth: number, r: Removal): Promise<void> {
  const p = quote(r.display);
  if (depth > MAX_REMOVE_DEPTH) throw new PathError(`${p} is nested more than ${MAX_REMOVE_DEPTH} levels deep; delete its deepest directories first.`, 'EFBIG');
  for (const name of await entryNames(dir, r.left + 1)) {
    if (r.sandbox.deniedBy(path.join(dir.real, name)) !== undefined) {
      throw new PathError(`${p} contains protected files (such as .git or secrets); they are not deleted.`, 'EACCES');
    }
    if (--r.left < 0) throw new PathError(`${p} holds more entries than may be deleted in one call.`, 'EFBIG');
    const st = await lstatAt(dir, name);
    if (!st) continue;
    if (st.dev !== top.dev) throw new PathError(`${p} contains another file system (a mount point); it is not deleted.`, 'EBUSY');
    if (st.isDirectory()) {
      const child = await openChildDir(dir, name, st);
      try {
        await emptyDirectory(child, top, depth + 1, r);
      } finally {
        await closeDir(child);
      }
      await fsp.rmdir(at(dir, name));
    } else {
      await fsp.unlink(at(dir, name));
    }
  }
}

/** The names in a held directory, at most `max` (read whole before anything in it is removed). */
async function entryNames(dir: HeldDir, max: number): Promise<string[]> {
  const names: string[] = [];
  const handle = await fsp.opendir(self(dir), { bufferSize: 64 });
  for await (const dirent of handle) {
    names.push(dirent.name);
    if (names.length >= max) break; // closes the directory
  }
  return names;
}
