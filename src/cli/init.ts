import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { packageFile } from '../runtime/package-files.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';

const SCHEMA_FILE = ['schema', 'toolwright.config.schema.json'] as const;
const SCHEMA_PLACEHOLDER = '__SCHEMA_LINE__';

/** The starter config: every toolset shown, the safe ones on, the rest commented out until configured. */
const STARTER_CONFIG = `# toolwright configuration (the $schema line gives editors completion and checks)
# Serve it:  toolwright serve --http      (or --stdio for desktop clients)
# Relative paths are relative to this file.
${SCHEMA_PLACEHOLDER}

server:
  transport: http          # http or stdio (the --http / --stdio flags win)
  host: 127.0.0.1          # keep loopback unless clients authenticate
  # allowUnauthenticatedNetwork: true   # serve e.g. 0.0.0.0 with no authentication (refused without it)
  port: 3000
  # shutdownGraceMs: 10000 # on SIGTERM/SIGINT, calls in flight may finish this long, then are stopped
  approval: destructive    # destructive | always | never: which calls wait for the user's yes
  timeoutMs: 60000         # default time a tool call may run
  limits:
    maxArgumentBytes: 1048576
    maxResultBytes: 1048576   # larger results travel by resource_link
    maxInFlight: 64
    maxQueued: 256
    # rateLimit:           # on by default with these values; false switches it off
    #   perPrincipal: { points: 1200, durationSeconds: 60 }
    #   perTool: { points: 6000, durationSeconds: 60 }
  # audit: { sqlite: .toolwright/audit.db, jsonl: audit.jsonl }   # or: audit: false
  # audit: { retention: { maxAgeDays: 30, maxBytes: 268435456 } }   # the default policy; retention: false keeps every record

toolsets:
  fs:                      # read_file, write_file, list_directory, search_files, file_info, move_file, delete_file
    roots: [./workspace]
    # readOnly: true
    # deny: ["*.sqlite"]   # added to .env*, *.pem, *.key, id_rsa*, credentials.json, .git
  csv: {}                  # analyze_csv, inside the fs roots
  time: {}                 # get_current_time, convert_time
  math: {}                 # calculate, calculate_sum

  # exec:                  # execute_command: only these executables, never a shell
  #   root: ./workspace
  #   commands:
  #     ls: { path: /bin/ls, args: ["-[lah]+", "[^-].*"], readOnly: true }
  #     git-status: { path: /usr/bin/git, positional: ["status"], readOnly: true }

  # http:                  # fetch_url: public hosts only; private and metadata addresses refused
  #   allowedHosts: ["api.example.com", "*.wikipedia.org"]

  # github:                # github_create_issue, github_search_issues, github_get_issue (npm install @octokit/core)
  #   repos: ["your-org/your-repo"]
  #   tokenEnv: GITHUB_TOKEN

  # weather: {}            # get_weather (Open-Meteo)

# tools: [./my-tools.ts]   # your own tool modules (.ts needs npm install tsx; .js needs nothing)
`;

const EXAMPLE_CSV = `city,country,population,area_km2
Tokyo,Japan,13960000,2194
Paris,France,2102650,105.4
Lagos,Nigeria,15388000,1171
Lima,Peru,10092000,2672
Oslo,Norway,717710,454
`;

/** `toolwright init`: a commented starter config and a workspace/ root with an example file. */
export function initCommand(io: CliIo, setCode: (code: number) => void): Command {
  return new Command('init')
    .description('write a commented toolwright.config.yaml and a workspace/ folder')
    .option('--dir <dir>', 'where to write them', '.')
    .option('--force', 'overwrite an existing toolwright.config.yaml')
    .action((options: { dir: string; force?: boolean }) => setCode(runInit(options, io)));
}

export function runInit(options: { dir: string; force?: boolean }, io: CliIo): number {
  const config = join(options.dir, 'toolwright.config.yaml');
  if (existsSync(config) && !options.force) throw new UsageError('toolwright.config.yaml already exists; pass --force to overwrite it');
  mkdirSync(join(options.dir, 'workspace'), { recursive: true });
  writeFileSync(config, STARTER_CONFIG.replace(SCHEMA_PLACEHOLDER, schemaLine(options.dir)));
  const example = join(options.dir, 'workspace', 'example.csv');
  if (!existsSync(example)) writeFileSync(example, EXAMPLE_CSV);
  io.stdout(
    `wrote toolwright.config.yaml and workspace/ (with example.csv)\nnext: toolwright serve --http${options.dir === '.' ? '' : ` --config ${join(options.dir, 'toolwright.config.yaml')}`}\n`,
  );
  return ExitCode.ok;
}

/**
 * A `$schema` that resolves from where the config is written. The toolwright installed for the
 * folder, as Node resolves it (`node_modules/toolwright` in the folder or the nearest folder
 * above it), by a path relative to the folder, so it stays right when the project moves or is
 * shared. Else the schema of the toolwright running now (a global install, a checkout, another
 * project's node_modules) as a file URL: a relative path climbing out of the folder into some
 * other project would be as machine-bound, and would read as if it were the project's own.
 */
function schemaLine(dir: string): string {
  const folder = resolve(dir);
  const hint = '# $schema: ./node_modules/toolwright/schema/toolwright.config.schema.json   (after npm install toolwright)';
  for (let at = folder; ; at = dirname(at)) {
    const installed = join(at, 'node_modules', 'toolwright', ...SCHEMA_FILE);
    if (existsSync(installed)) return `$schema: ${JSON.stringify(relativeRef(folder, installed))}`;
    if (dirname(at) === at) break;
  }
  let own: string;
  try {
    own = packageFile(...SCHEMA_FILE);
  } catch {
    own = '';
  }
  if (!own || !existsSync(own)) return hint;
  // JSON quoting is valid YAML and survives spaces, colons and # in a path.
  return `$schema: ${JSON.stringify(pathToFileURL(own).href)}`;
}

/** `file` relative to `folder`, with forward slashes, starting with ./ or ../ as editors expect. */
function relativeRef(folder: string, file: string): string {
  const rel = relative(folder, file);
  if (isAbsolute(rel)) return rel;
  const slashed = rel.split('\\').join('/');
  return slashed.startsWith('../') ? slashed : `./${slashed}`;
}
