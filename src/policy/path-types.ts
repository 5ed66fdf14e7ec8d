import type fs from 'node:fs';

/**
 * The sandbox's shapes that paths.ts, path-resolve.ts and the path-io family
 * all speak, in their own module so that paths.ts (which uses path-resolve.ts)
 * and path-resolve.ts (which takes them) do not import each other.
 */

export interface SandboxRoot {
  readonly name: string;
  /** The root as configured, made absolute (may go through symlinks). */
  readonly configured: string;
  /** realpath of the root, taken once at creation. */
  readonly real: string;
  /**
   * Where walks to this root start: the real path of the outermost root that
   * contains it (its own, unless roots nest), so that a nested root is
   * reached through held directories like any other path.
   */
  readonly anchor: string;
}

export interface ResolvedPath {
  /**
   * Absolute real path of the target: every directory on the way resolved,
   * inside a root. Uses never trust it as a path string: path-io.ts walks it
   * again from the root through held directories (path-fd.ts).
   */
  readonly real: string;
  /** The path as messages and results show it: relative, never the absolute root. */
  readonly display: string;
  /** The root the real path lies in. */
  readonly root: SandboxRoot;
  /** lstat of `real`, when it exists, taken through its held parent directory. */
  readonly stat?: fs.Stats;
  /** forWrite: absolute paths of the missing parent directories, outermost first. */
  readonly missingDirs: readonly string[];
}
