import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { at, closeDir, lstatAt, openChildDir, openDirByPath, openDirChain, statDir, type HeldDir } from './path-fd.js';
import { changedError, fsError, OutsideError, PathError, quote } from './path-errors.js';
import { segmentsBelow } from './path-parse.js';
import type { ResolvedPath, SandboxRoot } from './path-types.js';

/**
 * Resolution by descriptors: a path is followed one name at a time from the
 * root, each directory opened from its parent with O_NOFOLLOW (path-fd.ts).
 * Symbolic links are followed by hand: the link's own text says where it
 * goes, and a link whose target is not under a root (by name, `..` counted
 * against the real directories walked so far) is refused without looking
 * at its target. So nothing outside the roots is ever opened, stat'ed or
 * read, not even to say that it does not exist.
 */

/** Linux's limit on links followed in one resolution (MAXSYMLINKS). */
const MAX_LINKS = 40;

interface CheckOptions {
  roots: readonly SandboxRoot[];
  /** A link as the last segment is followed (reads), or refused (writes, moves, deletes). */
  followLast: boolean;
  /** Throws if a path's segments below its root are protected (asked before each name is looked at). */
  assertAllowed(segments: readonly string[]): void;
}

export interface Checked {
  /** The root the walk ended in. */
  root: SandboxRoot;
  /** The real directories below root.real down to the deepest one that exists. */
  dirs: string[];
  /** The last entry, when it exists (absent when the path ends at a directory reached through a link). */
  name?: string;
  /** lstat of the last entry, or the stat of the directory the path ends at; absent when something is missing. */
  stat?: fs.Stats;
  /** The segments from the first missing one on. */
  missing: string[];
}

interface Pending {
  name: string;
  /** The segment comes from a link's target (a missing one makes the link dangling). */
  fromLink: boolean;
}

/** Walks `segments` below `start`; see the file comment. */
export async function checkPath(start: SandboxRoot, segments: readonly string[], options: CheckOptions, display: string): Promise<Checked> {
  // A write's last segment that is a link is followed only to tell an
  // outside target (OutsideError, like any other way out) from an inside
  // one, then refused either way: links are never written through.
  let probing = false;
  try {
    const checked = await walk(start, segments, options, display, () => {
      probing = true;
    });
    if (probing) throw linkRefused(display);
    return checked;
  } catch (err) {
    if (probing && !(err instanceof OutsideError)) throw linkRefused(display);
    throw err;
  }
}

async function walk(start: SandboxRoot, segments: readonly string[], options: CheckOptions, display: string, probe: () => void): Promise<Checked> {
  let root = start;
  let dirs: string[] = [];
  const pending: Pending[] = segments.map((name) => ({ name, fromLink: false }));
  let links = 0;
  let following = options.followLast;
  let dir = await openRoot(root, display);
  try {
    while (pending.length > 0) {
      const { name, fromLink } = pending.shift()!;
      if (name === '..') {
        // Only a link's target has "..": it climbs the real directories walked, never above the root.
        if (dirs.length === 0) throw new OutsideError(display);
        dirs = dirs.slice(0, -1);
        dir = await reopen(dir, root, dirs, display);
        continue;
      }
      const last = pending.length === 0;
      // Before the name is looked at: a protected name gets one answer whether it exists or not.
      options.assertAllowed([...dirs, name]);
      const st = await lstatAt(dir, name).catch((err) => {
        throw fsError(err, display, 'open');
      });
      if (!st) {
        if (fromLink) throw new PathError(`${quote(display)} goes through a symbolic link whose target does not exist; it is refused.`, 'ELOOP');
        return { root, dirs, missing: [name, ...pending.map((p) => p.name)] };
      }
      if (st.isSymbolicLink()) {
        if (last && !following) {
          probe();
          following = true;
        }
        if (++links > MAX_LINKS) throw fsError({ code: 'ELOOP' }, display, 'open');
        // EINVAL: no longer a link (swapped since the lstat).
        const target = await fsp.readlink(at(dir, name)).catch((err: NodeJS.ErrnoException) => {
          throw err.code === 'EINVAL' || err.code === 'ENOENT' ? changedError(display) : fsError(err, display, 'open');
        });
        const dest = linkDestination(target, options.roots);
        if (!dest) throw new OutsideError(display);
        pending.unshift(...dest.segments.map((n) => ({ name: n, fromLink: true })));
        if (dest.root) {
          root = dest.root;
          dirs = [];
          dir = await reopen(dir, root, dirs, display);
        }
        continue;
      }
      if (last) return { root, dirs, name, stat: st, missing: [] };
      if (!st.isDirectory()) throw new PathError(`A part of ${quote(display)} is a file, not a directory.`, 'ENOTDIR');
      const child = await openChildDir(dir, name, st).catch((err) => {
        throw checkFailed(err, display);
      });
      await closeDir(dir);
      dir = child;
      dirs.push(name);
    }
    // The path ends at a directory reached through a link (or at a root).
    return { root, dirs, stat: await statDir(dir), missing: [] };
  } finally {
    await closeDir(dir);
  }
}

/**
 * Where a link's text leads, judged by name only: a relative target goes on
 * from the link's directory (its `..` climbs the real directories walked);
 * an absolute one must start with a root's real or configured path (the
 * longest such root), and goes on from that root. undefined: outside.
 */
function linkDestination(target: string, roots: readonly SandboxRoot[]): { root?: SandboxRoot; segments: string[] } | undefined {
  const parts = components(target);
  if (!path.isAbsolute(target)) return { segments: parts };
  let best: { root: SandboxRoot; length: number } | undefined;
  for (const root of roots) {
    for (const prefix of [root.real, root.configured]) {
      const own = components(prefix);
      if (own.length <= parts.length && own.every((c, i) => parts[i] === c) && (!best || own.length > best.length)) best = { root, length: own.length };
    }
  }
  return best && { root: best.root, segments: parts.slice(best.length) };
}

function components(p: string): string[] {
  return p.split(path.sep === '\\' ? /[\\/]+/ : '/').filter((c) => c !== '' && c !== '.');
}

/** Opens a root, from the outermost root that contains it (so a nested root's path is walked like any other). */
export async function openRoot(root: SandboxRoot, display: string): Promise<HeldDir> {
  try {
    return await openDirChain(root.anchor, segmentsBelow(root.real, root.anchor));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'ESTALE') {
      throw new PathError(`The root of ${quote(display)} is missing or was replaced; ask the operator to restore it.`, 'ENOENT');
    }
    throw fsError(err, display, 'open');
  }
}

/** Opens `dirs` below the root again (after "..", or after a link into another root), each with O_NOFOLLOW. */
async function reopen(dir: HeldDir, root: SandboxRoot, dirs: readonly string[], display: string): Promise<HeldDir> {
  await closeDir(dir);
  let current = await openRoot(root, display);
  try {
    for (const name of dirs) {
      const child = await openChildDir(current, name).catch((err) => {
        throw checkFailed(err, display);
      });
      await closeDir(current);
      current = child;
    }
    return current;
  } catch (err) {
    await closeDir(current);
    throw err;
  }
}

/** A directory that was checked a moment ago is no longer one (swapped, removed): the call fails, it never goes on. */
function checkFailed(err: unknown, display: string): PathError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT' || code === 'ESTALE') return changedError(display);
  return fsError(err, display, 'open');
}

function linkRefused(display: string): PathError {
  return new PathError(
    `${quote(display)} is a symbolic link; links are never followed or replaced when writing, moving or deleting. Use the path of the file itself.`,
    'ELOOP',
  );
}

interface OpenParentOptions {
  /**
   * Create the parent directories that were missing when the path was
   * checked (its missingDirs), one at a time through the held parent
   * (default false). A directory that existed then and is gone now is not
   * made again: the path changed, and the call fails.
   */
  create?: boolean;
}

/**
 * The use that follows a check: opens the parent of a resolved path from
 * its root by descriptors, every directory with O_NOFOLLOW, so the name it
 * returns lies in the directory that was checked (or the call fails). The
 * caller closes the directory.
 */
export async function openParentOf(target: ResolvedPath, options: OpenParentOptions = {}): Promise<{ dir: HeldDir; name: string }> {
  const p = quote(target.display);
  const segments = segmentsBelow(target.real, target.root.anchor);
  const name = segments.pop();
  if (name === undefined) throw new PathError(`${p} is a root directory; it cannot be written, moved or deleted.`, 'EPERM');
  let dir = await openDirByPath(target.root.anchor).catch(() => {
    throw new PathError(`The root of ${p} is missing or was replaced; ask the operator to restore it.`, 'ENOENT');
  });
  try {
    for (const segment of segments) {
      const child = await openOrCreate(dir, segment, target, options);
      await closeDir(dir);
      dir = child;
    }
    return { dir, name };
  } catch (err) {
    await closeDir(dir);
    throw err;
  }
}

async function openOrCreate(dir: HeldDir, name: string, target: ResolvedPath, options: OpenParentOptions): Promise<HeldDir> {
  const p = quote(target.display);
  try {
    return await openChildDir(dir, name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !target.missingDirs.includes(path.join(dir.real, name))) throw checkFailed(err, target.display);
  }
  if (!options.create) throw new PathError(`The parent directory of ${p} does not exist; pass create_parents: true to create it.`, 'ENOENT');
  // mkdir never follows a link at its last component (EEXIST); the open below refuses one.
  await fsp.mkdir(at(dir, name), { mode: 0o777 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw fsError(err, target.display, 'create the parent directories of');
  });
  return openChildDir(dir, name).catch(() => {
    throw new PathError(`A parent of ${p} is not a directory (it was created meanwhile as something else).`, 'ENOTDIR');
  });
}
