import { Command, CommanderError, Option } from 'commander';
import { packageVersion } from '../runtime/package-files.js';
import { auditCommand } from './audit-command.js';
import { initCommand } from './init.js';
import { authCommand } from './auth.js';
import type { CallOptions } from './call.js';
import type { ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, reportError, type CliIo } from './errors.js';
import type { DoctorCommandOptions } from './doctor.js';
import type { LoginOptions } from './login.js';
import type { ConnectOptions } from './interactive/connect-command.js';
import type { ConsoleOptions } from './console.js';
import type { ServeOptions } from './serve.js';
import type { DevOptions } from './dev/dev-command.js';
import { taskCommand } from './task-command.js';
import { primitiveCommands } from './primitives.js';
import { skillsCommand } from './skills.js';
import type { RunCollectionCliOptions } from './run-collection.js';
import { terminalGuard } from '../io/sanitize.js';

// Each command's action module is imported when that command runs (`await import` in its action),
// not at start-up: `toolwright --version` or `list --help` then loads commander and these
// definitions, not the server, the client and their packages (the bundler splits each action
// into its own chunks). The test suite starts the built CLI a few hundred times per run.

// On a terminal every write passes the last net (io/sanitize.ts); a pipe gets the bytes as written (`read uri > file` is the data).
const defaultIo: CliIo = {
  stdout: (text) => void process.stdout.write(process.stdout.isTTY ? terminalGuard(text) : text),
  stderr: (text) => void process.stderr.write(process.stderr.isTTY ? terminalGuard(text) : text),
};

/**
 * Runs the CLI and resolves with its exit code (0 ok, 1 usage, 2 connection
 * or protocol failure, 3 the tool returned isError). Never calls
 * process.exit, so tests can run it in-process.
 */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  // Everything after the first `--` is the stdio server's command line, untouched.
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  let code: number = ExitCode.ok;
  const program = buildProgram(io, command, (c) => (code = c));
  try {
    await program.parseAsync(own, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    return reportError(err, io, { verbose: own.includes('--verbose') });
  }
}

function buildProgram(io: CliIo, command: string[], setCode: (code: number) => void): Command {
  const program = new Command('toolwright')
    .description('Serve, list and call Model Context Protocol tools.')
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    // A subcommand's options after its name are its own (`audit prune --db x` is prune's --db).
    .enablePositionalOptions()
    .showHelpAfterError('(run toolwright --help for usage)');

  addServeCommand(program, io, setCode);
  addDevCommand(program, io, setCode);
  addClientCommands(program, io, command, setCode);
  addLoginCommands(program, io, setCode);
  program.addCommand(auditCommand(io, setCode));
  program.addCommand(initCommand(io, setCode));
  program.addCommand(authCommand(io, setCode));
  program.addCommand(taskCommand(io, command, setCode, packageVersion(), withClientOptions));
  for (const sub of primitiveCommands(io, command, setCode, packageVersion(), withClientOptions)) program.addCommand(sub);
  program.addCommand(skillsCommand(io, command, setCode, packageVersion(), withClientOptions));

  return program;
}

/** `serve`: this machine's tools, over stdio or HTTP. */
function addServeCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  program
    .command('serve')
    .description('serve tools over stdio (default) or Streamable HTTP')
    .option('--stdio', 'serve over stdin/stdout (the default)')
    .option('--http', 'serve over Streamable HTTP')
    .option('--console', 'with --http: serve the web console at /console/ beside the MCP endpoint (loopback binds only)')
    .option('--host <host>', 'HTTP interface to bind (default 127.0.0.1)')
    .option('--port <port>', 'HTTP port, 0 picks a free one (default 3000)')
    .option('--config <file>', 'toolwright.config.json or .yaml (default: the one in this directory, if any)')
    .option('--tools <module>', 'a .js, .mjs or .ts module exporting tools (alone, unless a config is used too)')
    .option(
      '--upstreams <file>',
      "mount every server of a desktop client's servers file (.mcp.json: mcpServers) as <name>_<tool> (alone, unless a config is used too)",
    )
    .option(
      '--search-catalog',
      'list only search_tools and call_tool (search mode, for catalogues too large for a model): every tool stays callable through them',
    )
    .option(
      '--allow-unauthenticated-network',
      'serve HTTP on a non-loopback --host without authentication (refused otherwise: every tool would be open to the network)',
    )
    .option(
      '--shutdown-grace <ms>',
      'on SIGTERM/SIGINT, how long calls in flight may finish before they are stopped (default 10000); a second signal exits at once',
    )
    .action(async (options: ServeOptions) => setCode(await (await import('./serve.js')).serveCommand(options, io, packageVersion())));
}

/** `dev`: serve with live reload and the console, for the person writing the server. */
function addDevCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  program
    .command('dev')
    .description('serve with live reload: edits to the tools modules, the config and its folders apply without a restart; opens the console')
    .option('--http', 'serve over Streamable HTTP with the console at /console/ (the default)')
    .option('--stdio', 'serve over stdin/stdout instead (no console)')
    .option('--host <host>', 'HTTP interface to bind (default 127.0.0.1; loopback only, as the console is)')
    .option('--port <port>', 'HTTP port, 0 picks a free one (default 3000)')
    .option('--config <file>', 'toolwright.config.json or .yaml (default: the one in this directory, if any)')
    .option('--tools <module>', 'a .js, .mjs or .ts module exporting tools (alone, unless a config is used too)')
    .option(
      '--upstreams <file>',
      "mount every server of a desktop client's servers file (.mcp.json) as <name>_<tool>, as serve does: served, not reloaded (restart to change them)",
    )
    .option('--no-open', 'print the console URL without opening a browser')
    .option('--no-typecheck', "apply reloads without type-checking them with the project's TypeScript")
    .action(async (options: DevOptions) => setCode(await (await import('./dev/dev-command.js')).devCommand(options, io, packageVersion())));
}

/** The commands that talk to a server as its client: list, doctor, call, run-collection, connect, console. */
function addClientCommands(program: Command, io: CliIo, command: string[], setCode: (code: number) => void): void {
  withClientOptions(program.command('list'))
    .option('--json', 'machine-readable JSON output')
    .description('list the tools of a server: toolwright list <url> | toolwright list -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server')
    .action(async (url: string | undefined, options: ClientCommandOptions) =>
      setCode(await (await import('./list.js')).listCommand(url, command, options, io, packageVersion())),
    );

  withClientOptions(program.command('doctor'))
    .option('--json', 'machine-readable JSON report')
    .option('--upstreams <file>', 'check every server of a servers file (.mcp.json), as serve --upstreams would mount them')
    .description('say step by step why connecting fails, and what to try: toolwright doctor <url> | @name | -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server, or @name')
    .action(async (url: string | undefined, options: DoctorCommandOptions) =>
      setCode(await (await import('./doctor.js')).doctorCommand(url, command, options, io)),
    );

  withClientOptions(program.command('call'))
    .description('call a tool: toolwright call <url> <tool> [key=value...] | toolwright call <tool> [key=value...] -- <command> [args...]')
    .argument('<operands...>', '[url] tool [key=value...]')
    .option('--json [arguments]', "machine-readable JSON output; given a JSON object ('{…}'), it is also the arguments")
    .option('--args <json>', 'arguments as a JSON object (key=value pairs are merged over it)')
    .option('--structured', 'show the structured content even when the text already carries it')
    .option('--output <file>', "save the result's images, audio and blobs (decoded) to <file>, mode 0600; several: <file>-1.<ext>, <file>-2.<ext>, …")
    .option('--force', 'let --output replace existing files')
    .option('--task', 'let the server run the call as a task (tasks extension): its status on stderr, questions answered here, Ctrl-C cancels it')
    .action(async (operands: string[], options: CallOptions) =>
      setCode(await (await import('./call.js')).callCommand(operands, command, options, io, packageVersion())),
    );

  withClientOptions(program.command('run-collection'))
    .description(
      'run a saved collection of calls and check each result (exit 3 when one fails): toolwright run-collection <name|file> <url> | @name | -- <command> [args...]',
    )
    .argument('<collection>', 'a collection name (.toolwright/collections/<name>.json) or a path to a collection file')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server, or @name')
    .option('--collections-dir <dir>', 'where named collections are (default: .toolwright/collections in this folder)')
    .option('--json', 'machine-readable JSON report')
    .option('--yes', 'run calls that may change or destroy data without asking (required for them without a terminal)')
    .action(async (collection: string, url: string | undefined, options: RunCollectionCliOptions) =>
      setCode(await (await import('./run-collection.js')).runCollectionCommand(collection, url, command, options, io, packageVersion())),
    );

  withClientOptions(program.command('connect'))
    .description('an interactive session with a server, for people: toolwright connect <url> | toolwright connect -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server')
    .option('--output-dir <dir>', 'where images, audio and blobs from results are saved (default: a new private temp folder)')
    .option(
      '--root <path>',
      "a folder offered to the server as one of its roots (repeatable); the server's sampling requests are answered here too",
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .action(async (url: string | undefined, options: ConnectOptions) =>
      setCode(await (await import('./interactive/connect-command.js')).connectCommand(url, command, options, io, packageVersion())),
    );

  withClientOptions(program.command('console'))
    .description('the web console on 127.0.0.1: toolwright console [url | @name] | toolwright console -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server, or @name from .mcp.json (optional: the page can connect too)')
    .option('--port <port>', 'port on 127.0.0.1 (default: a free one)')
    .option('--no-open', 'print the URL without opening a browser')
    .action(async (url: string | undefined, options: ConsoleOptions) =>
      setCode(await (await import('./console.js')).consoleCommand(url, command, options, io, packageVersion())),
    );
}

/** `login` and `logout`: the tokens the client commands use. */
function addLoginCommands(program: Command, io: CliIo, setCode: (code: number) => void): void {
  program
    .command('login')
    .description('log in to an HTTP server that asks for authorization (OAuth, in your browser); list, call and connect then use the stored tokens')
    .argument('<url>', 'http(s):// URL of the server')
    .option('--scope <scopes>', 'scopes to ask for (default: what the server asks for)')
    .option('--port <port>', 'port of the 127.0.0.1 listener the browser returns to (default: any free one)')
    .option('--no-browser', 'print the URL to open instead of opening a browser')
    .option('--client-id <id>', 'a client registered with the authorization server in advance (default: register dynamically)')
    .option('--client-secret-env <name>', "the environment variable holding --client-id's secret (never on the command line)")
    .option('--client-metadata-url <url>', "this client's Client ID Metadata Document (an https URL), for servers that take them")
    .option('--timeout <ms>', 'how long to wait for the browser (default 300000)')
    .action(async (url: string, options: LoginOptions) => setCode(await (await import('./login.js')).loginCommand(url, options, io, packageVersion())));

  program
    .command('logout')
    .description('forget the tokens stored for a server by toolwright login')
    .argument('<url>', 'http(s):// URL of the server')
    .action(async (url: string) => setCode(await (await import('./login.js')).logoutCommand(url, io)));
}

function withClientOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--era <era>', 'protocol era').choices(['auto', 'modern', 'legacy']).default('auto'))
    .option('--timeout <ms>', 'time allowed for each request, in milliseconds')
    .option('--connect-timeout <ms>', 'time allowed for connecting, in milliseconds (default 10000)')
    .option('--header <header>', 'HTTP header "Name: value" (repeatable)', (value: string, all: string[]) => [...all, value], [] as string[])
    .option(
      '-e, --env <KEY=VALUE>',
      'set an environment variable for the stdio server (repeatable)',
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option('--cwd <dir>', "the stdio server's working directory")
    .option(
      '--servers-file <path>',
      'where @name servers are defined ({"mcpServers": {…}}; default: ./.mcp.json, ./mcp.json, ~/.config/toolwright/servers.json)',
    )
    .option('--verbose', "show the stdio server's stderr as it comes (without it, its last lines are shown when it fails)");
}
