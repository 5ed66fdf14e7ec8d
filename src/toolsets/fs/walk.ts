import type { Dir, Dirent } from 'node:fs';
import path from 'node:path';
import { openDirectory } from '../../policy/path-io.js';
import type { PathSandbox } from '../../policy/paths.js';
import { TimeSlicer } from '../time-slice.js';

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkEntry {
  /** Absolute real path (never shown). */
  real: string;
  /** Shown path: the start's display path joined with the segments below it. */
  display: string;
  /** Path below the start, `/`-separated. */
  relative: string;
  name: string;
  type: EntryType;
  /** 1 for the start's children. */
  depth: number;
}

interface WalkOptions {
  maxDepth: number;
  /** Entries read from any one directory; the rest of a larger directory is skipped (and counted). */
  maxPerDirectory: number;
  signal: AbortSignal;
  /** Shared with the caller's own work on the entries, so both count against one time slice (default: the walk's own). */
  slicer?: TimeSlicer;
}

export interface WalkCounters {
  /** Entries hidden because a deny rule matches them. */
  denied: number;
  /** Directories read only in part because they hold more than maxPerDirectory entries. */
  truncatedDirectories: number;
  /** Directories that could not be read (permissions, removed meanwhile). */
  unreadable: number;
}

/**
 * Breadth-first walk below a directory, in name order within each directory.
 * It never follows symlinks (they are reported as 'symlink' and not entered,
 * so a walk cannot leave its root), never enters a denied name, reads each
 * directory with a bound, and checks the signal at every entry. Between
 * entries it gives the event loop a turn whenever its time slice is used up:
 * a directory of thousands of entries is otherwise handled in one unbroken
 * chain of microtasks that starves every other request.
 */
export async function* walk(
  sandbox: PathSandbox,
  startReal: string,
  startDisplay: string,
  options: WalkOptions,
  counters: WalkCounters,
): AsyncGenerator<WalkEntry> {
  const slicer = options.slicer ?? new TimeSlicer(options.signal);
  const queue: Array<{ real: string; relative: string; depth: number }> = [{ real: startReal, relative: '', depth: 0 }];
  // A read index instead of shift(): shift moves the whole queue each time, quadratic over a wide tree.
  for (let head = 0; head < queue.length; head++) {
    options.signal.throwIfAborted();
    const dir = queue[head];
    const dirents = await readBounded(sandbox, dir.real, options.maxPerDirectory, counters);
    for (const dirent of dirents) {
      await slicer.tick();
      const real = path.join(dir.real, dirent.name);
      if (sandbox.deniedBy(real) !== undefined) {
        counters.denied++;
        continue;
      }
      const relative = dir.relative === '' ? dirent.name : `${dir.relative}/${dirent.name}`;
      const type = typeOf(dirent);
      const entry: WalkEntry = { real, display: joinDisplay(startDisplay, relative), relative, name: dirent.name, type, depth: dir.depth + 1 };
      yield entry;
      if (type === 'directory' && entry.depth < options.maxDepth) queue.push({ real, relative, depth: entry.depth });
    }
  }
}

function joinDisplay(base: string, relative: string): string {
  if (relative === '') return base;
  return base === '.' ? relative : `${base}/${relative}`;
}

function typeOf(d: Dirent): EntryType {
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isDirectory()) return 'directory';
  if (d.isFile()) return 'file';
  return 'other';
}

/** Reads at most `max` entries (streaming, so a huge directory is neither loaded nor read whole), sorted by name. */
async function readBounded(sandbox: PathSandbox, dir: string, max: number, counters: WalkCounters): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  let handle: Dir;
  try {
    // Reached from the root through held directories (path-io.ts): if this
    // directory, or a parent, has become a link since, opening it fails.
    handle = await openDirectory(sandbox, dir, { bufferSize: 64 });
  } catch {
    counters.unreadable++;
    return entries;
  }
  try {
    for await (const dirent of handle) {
      if (entries.length >= max) {
        counters.truncatedDirectories++;
        break; // closes the directory
      }
      entries.push(dirent);
    }
  } catch {
    counters.unreadable++;
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
