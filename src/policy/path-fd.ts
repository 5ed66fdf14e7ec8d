import fs, { constants } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Directories held open, so that a name is looked up in the very directory
 * that was checked, not in whatever a path string leads to at the moment of
 * use. Node has no openat(), but on Linux `/proc/self/fd/<fd>/<name>` looks
 * `name` up in the directory open as `<fd>` (the magic link is the open
 * directory itself, wherever it is now), so every open, lstat, readlink,
 * mkdir, rename, link, unlink and rmdir below goes through such a path.
 * Each directory is opened with O_DIRECTORY | O_NOFOLLOW from its parent's
 * descriptor, from the root down: a component swapped for a symbolic link
 * makes the open fail, it is never followed.
 *
 * Without /proc/self/fd (macOS, Windows, a Linux without /proc) the same
 * calls take the directory's real path instead: each component is still
 * checked (lstat: a directory, not a link) but a swap between the check and
 * the use is only narrowed, not closed (see docs/built-in-tools.md#symbolic-links-and-races).
 */
export interface HeldDir {
  /** The absolute real path the directory was reached at (for deny rules and the fallback; never shown). */
  readonly real: string;
  /** The open directory, where /proc/self/fd is available. */
  readonly handle?: FileHandle;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

let available: boolean | undefined;

/** Whether names can be bound to held directories here (probed once: Linux with /proc mounted). */
export function descriptorPathsAvailable(): boolean {
  available ??= probe();
  return available;
}

/** @internal Tests force the path fallback (false) on Linux, or restore probing (undefined). */
export function forceDescriptorPaths(value: boolean | undefined): void {
  available = value;
}

function probe(): boolean {
  if (process.platform !== 'linux') return false;
  let fd: number | undefined;
  try {
    fd = fs.openSync('/', DIR_FLAGS);
    const viaProc = fs.statSync(`/proc/self/fd/${fd}/.`);
    const held = fs.fstatSync(fd);
    return viaProc.ino === held.ino && viaProc.dev === held.dev;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The path that names `name` inside `dir`: bound to the held directory where possible. */
export function at(dir: HeldDir, name: string): string {
  return dir.handle ? `/proc/self/fd/${dir.handle.fd}/${name}` : path.join(dir.real, name);
}

/** The path that names the held directory itself (for opendir). */
export function self(dir: HeldDir): string {
  return dir.handle ? `/proc/self/fd/${dir.handle.fd}` : dir.real;
}

/** Opens a directory by its absolute real path: the start of every walk (a root, chosen by the operator). */
export async function openDirByPath(real: string): Promise<HeldDir> {
  if (!descriptorPathsAvailable()) {
    await assertDirectory(real);
    return { real };
  }
  return { real, handle: await fsp.open(real, DIR_FLAGS) };
}

/**
 * Opens the directory `name` inside `dir`. Fails with ELOOP or ENOTDIR when
 * it is a symbolic link (never followed) or not a directory, ENOENT when it
 * is missing. `expected` (an lstat taken earlier) must be the same inode.
 */
export async function openChildDir(dir: HeldDir, name: string, expected?: fs.Stats): Promise<HeldDir> {
  const real = path.join(dir.real, name);
  if (!dir.handle) {
    const st = await assertDirectory(real);
    if (expected && !sameFile(st, expected)) throw codeError('ESTALE');
    return { real };
  }
  const handle = await fsp.open(at(dir, name), DIR_FLAGS);
  if (expected) {
    const st = await handle.stat().catch(async (err) => {
      await handle.close();
      throw err;
    });
    if (!sameFile(st, expected)) {
      await handle.close();
      throw codeError('ESTALE');
    }
  }
  return { real, handle };
}

/** Opens `segments` below `startReal` one directory at a time, closing each parent; the caller closes the result. */
export async function openDirChain(startReal: string, segments: readonly string[]): Promise<HeldDir> {
  let dir = await openDirByPath(startReal);
  try {
    for (const name of segments) {
      const child = await openChildDir(dir, name);
      await closeDir(dir);
      dir = child;
    }
    return dir;
  } catch (err) {
    await closeDir(dir);
    throw err;
  }
}

export async function closeDir(dir: HeldDir | undefined): Promise<void> {
  await dir?.handle?.close().catch(() => undefined);
}

/** lstat of `name` in `dir`, or undefined when it does not exist. */
export async function lstatAt(dir: HeldDir, name: string): Promise<fs.Stats | undefined> {
  try {
    return await fsp.lstat(at(dir, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The held directory's own stat. */
export async function statDir(dir: HeldDir): Promise<fs.Stats> {
  return dir.handle ? dir.handle.stat() : fsp.lstat(dir.real);
}

/** Makes renames in the directory durable; some file systems cannot fsync a directory, which is not an error. */
export async function syncDir(dir: HeldDir): Promise<void> {
  if (dir.handle) {
    await dir.handle.sync().catch(() => undefined);
    return;
  }
  const handle = await fsp.open(dir.real, constants.O_RDONLY | constants.O_DIRECTORY).catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}

/**
 * Without held directories a directory was reached by path: it must still be
 * where it was checked, no component turned into a link since. (With them,
 * this holds by construction and nothing is looked up.)
 */
export async function stillReal(dir: HeldDir): Promise<boolean> {
  if (dir.handle) return true;
  return (await fsp.realpath(dir.real).catch(() => undefined)) === dir.real;
}

export function sameFile(a: fs.Stats, b: fs.Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/** An error carrying only a code, as the fs calls throw (its message is never shown). */
export function codeError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/** The fallback's check of one component: a directory, not a link (lstat, so a link is seen as itself). */
async function assertDirectory(real: string): Promise<fs.Stats> {
  const st = await fsp.lstat(real);
  if (st.isSymbolicLink()) throw codeError('ELOOP');
  if (!st.isDirectory()) throw codeError('ENOTDIR');
  return st;
}
