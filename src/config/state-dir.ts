import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * What marks a folder as the user's project: `toolwright serve` keeps its state there. A
 * `workspace/` folder too: it is what the default toolsets serve, so a folder that has one
 * (made by hand, or by `toolwright init` before the config was moved) means it to be served.
 */
const PROJECT_MARKERS = ['package.json', '.git', '.toolwright', 'toolwright.config.json', 'toolwright.config.yaml', 'toolwright.config.yml'];
const PROJECT_FOLDERS = ['workspace'];

/** Where a server started by the CLI keeps its state (audit trail, tasks, the default workspace). */
export interface StateLocation {
  /** The folder state files go in: `<project>/.toolwright`, or the per-user state dir. */
  dir: string;
  /** The project's folder; undefined when state is per-user. */
  project?: string;
  /** Where the default toolsets' `./workspace` is: the project, else the per-user state dir. */
  base: string;
}

/**
 * The state folder of `toolwright serve` (and where `toolwright audit` looks):
 * - with a config file, its folder's `.toolwright/`;
 * - else the working directory's `.toolwright/`, when the working directory is a project
 *   (package.json, .git, .toolwright, a toolwright config or a workspace/ folder) that this
 *   user can write;
 * - else the per-user state dir (see userStateDir). Desktop clients spawn stdio servers
 *   from `/` or their own install folder: state must not land there, nor fail there.
 * $TOOLWRIGHT_AUDIT_DIR and a config's `server.audit` still say where the audit trail goes.
 */
export function locateState(cwd: string, configFile?: string, env: NodeJS.ProcessEnv = process.env): StateLocation {
  if (configFile) return projectState(dirname(configFile));
  if (isProject(cwd) && isWritable(cwd)) return projectState(cwd);
  const dir = userStateDir(env);
  return { dir, base: dir };
}

function projectState(project: string): StateLocation {
  return { dir: join(project, '.toolwright'), project, base: project };
}

/**
 * The per-user state dir: `$XDG_STATE_HOME/toolwright` when set, else the platform's place
 * for it: `~/Library/Application Support/toolwright` (macOS), `%LOCALAPPDATA%\toolwright`
 * (Windows), `~/.local/state/toolwright` (elsewhere).
 */
function userStateDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'toolwright');
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'toolwright');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'toolwright');
  return join(home, '.local', 'state', 'toolwright');
}

function isProject(dir: string): boolean {
  return PROJECT_MARKERS.some((name) => existsSync(join(dir, name))) || PROJECT_FOLDERS.some((name) => isDirectory(join(dir, name)));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isWritable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
