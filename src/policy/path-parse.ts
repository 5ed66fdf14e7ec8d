import path from 'node:path';
import { PathError } from './path-errors.js';

/**
 * The lexical checks every user path passes before the file system is
 * touched: type and length, NUL and control characters, Windows drive and
 * UNC forms, and `..` segments. `..` is refused everywhere, not only where it
 * would escape: after symlinks, `a/../b` need not mean `b`, and a rule with
 * no exceptions cannot be talked around.
 */
const MAX_PATH_CHARS = 4_096;

export type ParsedPath = { absolute: false; segments: string[] } | { absolute: true; normalized: string };

export function parseUserPath(input: unknown): ParsedPath {
  if (typeof input !== 'string') throw new PathError('A path must be a string.', 'EINVAL');
  if (input.length > MAX_PATH_CHARS) throw new PathError(`A path may have at most ${MAX_PATH_CHARS} characters.`, 'ENAMETOOLONG');
  if (input.includes('\0')) throw new PathError('The path contains a NUL byte, which no file name may contain; remove it.', 'EINVAL');
  // Other control characters are legal in POSIX names but let a name forge lines in tool output.
  if (/[\x01-\x1f\x7f]/.test(input)) throw new PathError('The path contains control characters; use a path with printable characters only.', 'EINVAL');
  if (/^[A-Za-z]:/.test(input) || input.includes('\\') || input.startsWith('//')) {
    throw new PathError(
      'Windows-style paths (drive letters, backslashes, UNC shares) are not accepted; use forward slashes, relative to the root, e.g. "notes/todo.txt".',
      'EINVAL',
    );
  }
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) {
    throw new PathError('Paths may not contain ".." segments; give the path from the root instead, e.g. "notes/todo.txt".', 'EINVAL');
  }
  if (input.startsWith('/')) return { absolute: true, normalized: path.posix.join('/', ...segments) };
  return { absolute: false, segments };
}

/**
 * Whether `child` is `parent` or inside it, by whole segments: `/root` does
 * not contain `/root-evil`. Both must be absolute and normalized.
 */
export function isWithin(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}

/** The segments of `child` below `parent` (which must contain it). */
export function segmentsBelow(child: string, parent: string): string[] {
  if (child === parent) return [];
  const rest = child.slice(parent.endsWith(path.sep) ? parent.length : parent.length + 1);
  return rest.split(path.sep).filter((s) => s !== '');
}
