import { ToolError } from '../protocol/tool-error.js';

/**
 * A refused or failed path operation. It is a ToolError, so a handler may
 * let it through and the model reads its text; the text names only the path
 * as the model gave it (relative to its root), never the absolute root
 * (docs/architecture.md#rules-that-keep-it-safe: errors never carry
 * absolute paths).
 */
export class PathError extends ToolError {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'PathError';
  }
}

/**
 * The one answer for every path that a symbolic link leads out of the roots:
 * the same text whether the target exists or not, is a file or a directory,
 * a loop or unreadable, so that no answer tells anything about the outside.
 * The target is judged by the link's text alone; nothing outside is ever
 * looked at (issue 18, item 7).
 */
export class OutsideError extends PathError {
  constructor(display: string) {
    super(`${quote(display)} goes through a symbolic link that leads outside the allowed roots; it is refused. Use a path inside the root instead.`, 'EACCES');
  }
}

/** A directory on the path was moved, removed or replaced (by a link, say) between the check and the use. */
export function changedError(display: string, nothing = 'nothing was done'): PathError {
  return new PathError(`${quote(display)} changed while it was being used (a directory on its path was moved or replaced); ${nothing}. Try again.`, 'EAGAIN');
}

/** How a path is shown in messages: quoted, so odd characters and spaces stay visible. */
export function quote(display: string): string {
  return JSON.stringify(display);
}

/**
 * Turns a Node file system error into a PathError about `display`. The
 * original message is dropped on purpose: it carries the absolute path.
 */
export function fsError(err: unknown, display: string, action: string): PathError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? 'EUNKNOWN';
  const p = quote(display);
  switch (code) {
    case 'ENOENT':
      return new PathError(`${p} does not exist. Check the name with list_directory or search_files.`, code);
    case 'EEXIST':
      return new PathError(`${p} already exists.`, code);
    case 'ENOTDIR':
      return new PathError(`A part of ${p} is a file, not a directory.`, code);
    case 'EISDIR':
      return new PathError(`${p} is a directory; ${action} needs a file.`, code);
    case 'ENOTEMPTY':
      return new PathError(`${p} is a directory that is not empty.`, code);
    case 'EACCES':
    case 'EPERM':
      return new PathError(`Permission denied: the server may not ${action} ${p}.`, code);
    case 'ELOOP':
      return new PathError(`${p} goes through a symbolic link that is refused (a loop, or a link where none is allowed).`, code);
    case 'ENAMETOOLONG':
      return new PathError(`${p} is too long for the file system; use shorter names.`, code);
    case 'ENOSPC':
    case 'EDQUOT':
      return new PathError(`No space left to ${action} ${p}.`, code);
    case 'EXDEV':
      return new PathError(`Cannot ${action} ${p} across file systems; copy it with read_file and write_file instead.`, code);
    case 'EBUSY':
      return new PathError(`${p} is busy (in use or a mount point); ${action} was not done.`, code);
    case 'EROFS':
      return new PathError(`${p} is on a read-only file system.`, code);
    case 'EINVAL':
      return new PathError(`Cannot ${action} ${p}: the operation is not valid for it (for example, moving a directory into itself).`, code);
    default:
      return new PathError(`Could not ${action} ${p} (${code}).`, code);
  }
}

/** Rethrows PathErrors as they are and wraps any other fs error. */
export function asPathError(err: unknown, display: string, action: string): PathError {
  return err instanceof PathError ? err : fsError(err, display, action);
}
