import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_DENY, DenyList } from './path-deny.js';
import { closeDir, descriptorPathsAvailable, statDir } from './path-fd.js';
import { fsError, PathError, quote } from './path-errors.js';
import { isWithin, parseUserPath, segmentsBelow, type ParsedPath } from './path-parse.js';
import { checkPath, openRoot } from './path-resolve.js';
import type { ResolvedPath, SandboxRoot } from './path-types.js';

export { PathError } from './path-errors.js';
export { DEFAULT_DENY } from './path-deny.js';
export type { ResolvedPath, SandboxRoot } from './path-types.js';

/** A root given by path (absolute, or relative to `cwd`) and an optional name. */
export interface RootSpec {
  path: string;
  /** How paths in this root are addressed when there are several roots (default: the directory's name). */
  name?: string;
}

export interface PathSandboxOptions {
  /** The directories tools may use. With one root, paths are relative to it; with several, they start with the root's name. */
  roots: ReadonlyArray<string | RootSpec>;
  /** Base for relative roots (default `process.cwd()`). */
  cwd?: string;
  /** A root that does not exist: 'refuse' (default) throws at creation, 'create' makes it. */
  missingRoots?: 'refuse' | 'create';
  /** Globs of names no tool may touch (see DenyList). Added to DEFAULT_DENY unless `denyMode` is 'replace'. */
  deny?: readonly string[];
  denyMode?: 'add' | 'replace';
  /** Largest file a tool may read whole, in bytes (default 10 MiB). */
  maxReadBytes?: number;
  /** Largest content a tool may write, in bytes (default 10 MiB). */
  maxWriteBytes?: number;
}

export interface ResolveOptions {
  /** Refuse a path that does not exist (default true). */
  mustExist?: boolean;
  /**
   * The path is about to be written, moved or deleted (default false): its
   * last segment is not followed but lstat'ed, and refused if it is a
   * symbolic link; missing parent directories are reported in `missingDirs`.
   */
  forWrite?: boolean;
  /** Accept a regular file with other hard links (default false; only safe for unlinking it). */
  allowHardLinks?: boolean;
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const ROOT_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/**
 * The boundary of every file system tool: a user path becomes a real path
 * inside one of the roots, or a PathError that names only the relative path.
 *
 * Checks, in order: lexical (path-parse.ts: NUL, control characters, Windows
 * forms, `..`); which root (absolute paths only inside one); deny globs on
 * the path as given; then a walk from the root through held directories
 * (path-resolve.ts), following links by their text only: a link that leads
 * outside the roots is refused with one message whatever lies there, and
 * nothing outside is ever looked at; deny globs on every directory walked
 * and on the real path; a dangling link is refused; an existing target must
 * be a regular file or a directory, and a regular file must have one link
 * (a hard link may alias a file outside the root).
 *
 * The result is a check, not a capability: every use (path-io.ts) walks the
 * real path again through held directories and verifies what it opened, so
 * a directory swapped for a link between check and use makes the call
 * fail (on Linux; see path-fd.ts for other platforms).
 */
export class PathSandbox {
  readonly roots: readonly SandboxRoot[];
  readonly maxReadBytes: number;
  readonly maxWriteBytes: number;
  private readonly deny: DenyList;

  private constructor(roots: SandboxRoot[], deny: DenyList, maxReadBytes: number, maxWriteBytes: number) {
    this.roots = roots;
    this.deny = deny;
    this.maxReadBytes = maxReadBytes;
    this.maxWriteBytes = maxWriteBytes;
  }

  /** Builds the sandbox, resolving (and creating, if asked) each root once. Throws on bad configuration. */
  static create(options: PathSandboxOptions): PathSandbox {
    const cwd = options.cwd ?? process.cwd();
    if (options.roots.length === 0) throw new Error('PathSandbox needs at least one root');
    const roots: SandboxRoot[] = [];
    for (const spec of options.roots) {
      const { path: given, name } = typeof spec === 'string' ? { path: spec, name: undefined } : spec;
      const configured = path.resolve(cwd, given);
      if (!fs.existsSync(configured)) {
        if (options.missingRoots !== 'create') throw new Error(`root ${configured} does not exist (set missingRoots: 'create' to create it)`);
        fs.mkdirSync(configured, { recursive: true, mode: 0o755 });
      }
      const real = fs.realpathSync(configured);
      if (!fs.statSync(real).isDirectory()) throw new Error(`root ${configured} is not a directory`);
      roots.push({ name: uniqueName(name ?? path.basename(real), roots, name !== undefined), configured, real, anchor: real });
    }
    const anchored = roots.map((root) => ({ ...root, anchor: outermost(root.real, roots) }));
    const globs = options.denyMode === 'replace' ? [...(options.deny ?? [])] : [...DEFAULT_DENY, ...(options.deny ?? [])];
    return new PathSandbox(anchored, new DenyList(globs), positive(options.maxReadBytes, 'maxReadBytes'), positive(options.maxWriteBytes, 'maxWriteBytes'));
  }

  /**
   * Whether every check and use is bound to held directories (Linux with
   * /proc mounted). false: component checks by path, a race is narrowed but
   * not closed (docs/built-in-tools.md#symbolic-links-and-races).
   */
  get boundToDescriptors(): boolean {
    return descriptorPathsAvailable();
  }

  get denyGlobs(): string[] {
    return this.deny.globs;
  }

  /** With several roots, the empty path (or ".") names no directory: it is the list of roots. */
  isRootList(input: string): boolean {
    if (this.roots.length === 1) return false;
    const parsed = parseUserPath(input);
    return !parsed.absolute && parsed.segments.length === 0;
  }

  /** How paths are written in this sandbox, for tool descriptions. */
  pathHint(): string {
    const where =
      this.roots.length === 1
        ? 'relative to the workspace root (e.g. "notes/todo.txt"; "." is the root)'
        : `starting with a root name (${this.roots.map((r) => quote(r.name)).join(', ')}), e.g. ${quote(this.example())}`;
    return `${where}; forward slashes, no ".."`;
  }

  /** Resolves a user path; see the class comment for what is refused. */
  async resolve(input: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
    const mustExist = options.mustExist ?? true;
    const forWrite = options.forWrite ?? false;
    const { root, segments } = this.locate(parseUserPath(input));
    const display = this.display(root, segments);
    this.assertAllowed(segments, display);
    if (segments.length === 0) {
      if (forWrite) throw new PathError(`${quote(display)} is a root directory; it cannot be written, moved or deleted.`, 'EPERM');
      const dir = await openRoot(root, display);
      try {
        return {
          real: root.real,
          display,
          root,
          stat: await statDir(dir).catch((err) => {
            throw fsError(err, display, 'open');
          }),
          missingDirs: [],
        };
      } finally {
        await closeDir(dir);
      }
    }
    const checked = await checkPath(
      root,
      segments,
      {
        roots: this.roots,
        followLast: !forWrite,
        assertAllowed: (below) => this.assertAllowed(below, display),
      },
      display,
    );
    const base = path.join(checked.root.real, ...checked.dirs);
    const real = path.join(base, ...(checked.name === undefined ? [] : [checked.name]), ...checked.missing);
    const inside = this.rootOf(real)!;
    this.assertAllowed(segmentsBelow(real, inside.real), display);
    if (checked.missing.length > 0 && (mustExist || !forWrite)) {
      throw new PathError(`${quote(display)} does not exist. Check the name with list_directory or search_files.`, 'ENOENT');
    }
    if (forWrite && real === inside.real) throw new PathError(`${quote(display)} is a root directory; it cannot be written, moved or deleted.`, 'EPERM');
    const missingDirs = checked.missing.slice(0, -1).map((_, i) => path.join(base, ...checked.missing.slice(0, i + 1)));
    if (checked.stat) assertKind(checked.stat, display, options.allowHardLinks ?? false);
    return { real, display, root: inside, stat: checked.stat, missingDirs };
  }

  /** The root that contains a real path (the innermost, when roots nest). */
  rootOf(real: string): SandboxRoot | undefined {
    let best: SandboxRoot | undefined;
    for (const root of this.roots) {
      if (isWithin(real, root.real) && (!best || root.real.length > best.real.length)) best = root;
    }
    return best;
  }

  /** The deny glob that matches a real path inside a root, if any (for walks that meet names one by one). */
  deniedBy(real: string): string | undefined {
    const root = this.rootOf(real);
    return root ? this.deny.match(segmentsBelow(real, root.real)) : 'outside the roots';
  }

  private display(root: SandboxRoot, segments: readonly string[]): string {
    const parts = this.roots.length === 1 ? segments : [root.name, ...segments];
    return parts.length === 0 ? '.' : parts.join('/');
  }

  private assertAllowed(segments: readonly string[], display: string): void {
    const rule = this.deny.match(segments);
    if (rule !== undefined) {
      throw new PathError(
        `${quote(display)} is a protected name (it matches the deny rule ${quote(rule)}); the server never reads, writes, lists or deletes it.`,
        'EACCES',
      );
    }
  }

  /** Which root a parsed path addresses, and the segments below it. */
  private locate(parsed: ParsedPath): { root: SandboxRoot; segments: string[] } {
    if (parsed.absolute) {
      let found: { root: SandboxRoot; prefix: string } | undefined;
      for (const root of this.roots) {
        for (const prefix of [root.real, root.configured]) {
          if (isWithin(parsed.normalized, prefix) && (!found || prefix.length > found.prefix.length)) found = { root, prefix };
        }
      }
      // The path is not echoed: it may share a prefix with the root, which must not be shown.
      if (!found)
        throw new PathError(
          `An absolute path outside the allowed roots was refused. Use a path relative to the root, e.g. ${quote(this.example())}.`,
          'EACCES',
        );
      return { root: found.root, segments: segmentsBelow(parsed.normalized, found.prefix) };
    }
    if (this.roots.length === 1) return { root: this.roots[0], segments: parsed.segments };
    const [first, ...rest] = parsed.segments;
    const root = this.roots.find((r) => r.name === first);
    if (!root) {
      const names = this.roots.map((r) => quote(r.name)).join(', ');
      throw new PathError(
        `Paths start with the name of a root (${names}), e.g. ${quote(this.example())}; ${first === undefined ? 'no root was named' : `${quote(first)} is not one`}.`,
        'ENOENT',
      );
    }
    return { root, segments: rest };
  }

  private example(): string {
    return this.roots.length === 1 ? 'notes/todo.txt' : `${this.roots[0].name}/notes/todo.txt`;
  }
}

function assertKind(stat: fs.Stats, display: string, allowHardLinks: boolean): void {
  if (stat.isSymbolicLink()) {
    throw new PathError(
      `${quote(display)} is a symbolic link; links are never followed or replaced when writing, moving or deleting. Use the path of the file itself.`,
      'ELOOP',
    );
  }
  if (!stat.isFile() && !stat.isDirectory()) {
    throw new PathError(
      `${quote(display)} is not a regular file or directory (a device, FIFO or socket); only regular files and directories are allowed.`,
      'EPERM',
    );
  }
  if (stat.isFile() && stat.nlink > 1 && !allowHardLinks) {
    throw new PathError(
      `${quote(display)} has ${stat.nlink} hard links, so it may be the same file as one outside the root; it is refused. Work on a copy instead.`,
      'EPERM',
    );
  }
}

/** The real path of the outermost root that contains `real` (roots may nest). */
function outermost(real: string, roots: readonly SandboxRoot[]): string {
  let best = real;
  for (const root of roots) if (isWithin(real, root.real) && root.real.length < best.length) best = root.real;
  return best;
}

function uniqueName(wanted: string, taken: SandboxRoot[], explicit: boolean): string {
  // A directory's own name may hold anything; a derived name keeps the safe characters.
  const base = explicit
    ? wanted
    : wanted
        .replace(/[^A-Za-z0-9_.-]/g, '_')
        .replace(/^[.-]+/, '')
        .slice(0, 60) || 'root';
  if (!ROOT_NAME.test(base)) throw new Error(`root name ${JSON.stringify(wanted)} must be 1-64 characters of [A-Za-z0-9_.-], not starting with "." or "-"`);
  if (explicit && taken.some((r) => r.name === base)) throw new Error(`two roots are named ${JSON.stringify(base)}`);
  let name = base;
  for (let n = 2; taken.some((r) => r.name === name); n++) name = `${base}-${n}`;
  return name;
}

function positive(value: number | undefined, what: string): number {
  if (value === undefined) return DEFAULT_MAX_BYTES;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${what} must be a positive integer`);
  return value;
}
