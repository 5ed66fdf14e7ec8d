import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { CommandRefusal } from './command-refusal.js';
import { isWithin } from './path-parse.js';

/**
 * The working directory of a command: `relative` (default: the root itself)
 * resolved inside `root`, with symlinks followed (realpath) and the result
 * compared to the real root with a separator-aware test, so `../x`, a
 * symlink out of the root, or a sibling such as `/srv/root-other` for root
 * `/srv/root` are all refused. Refusals name the relative path only, never
 * the root's absolute path. Also answers the real path of the root it was
 * checked against (git's hardening stops discovery there).
 */
export async function resolveWorkingDirectoryIn(root: string, relative: string | undefined): Promise<{ cwd: string; realRoot: string }> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    throw new CommandRefusal('The working-directory root of this server does not exist; ask its operator to create it.');
  }
  if (relative === undefined || relative === '' || relative === '.') return { cwd: realRoot, realRoot };
  const shown = JSON.stringify(relative.length > 200 ? `${relative.slice(0, 200)}…` : relative);
  if (relative.includes('\0')) throw new CommandRefusal(`cwd ${shown} contains a NUL character.`);
  if (isAbsolute(relative))
    throw new CommandRefusal(`cwd ${shown} is absolute; give a directory relative to the working root (e.g. "src" or "."), which is where commands run.`);
  let real: string;
  try {
    real = await realpath(resolve(realRoot, relative));
  } catch {
    throw new CommandRefusal(`cwd ${shown} does not exist inside the working root. Give an existing directory relative to it, or omit cwd to run in the root.`);
  }
  if (!isWithin(real, realRoot))
    throw new CommandRefusal(
      `cwd ${shown} leads outside the working root (through ".." or a symbolic link). Commands run only inside the root; give a directory within it.`,
    );
  if (!(await stat(real)).isDirectory()) throw new CommandRefusal(`cwd ${shown} is not a directory.`);
  return { cwd: real, realRoot };
}
