import { Command } from 'commander';
import type { ClientCommandOptions } from '../client/connect/target.js';
import type { CliIo } from './errors.js';
import type { ReadOptions } from './primitives-actions.js';

/**
 * The server's other primitives from the command line: `resources`, `read
 * <uri>`, `prompts` and `prompt <name> key=value…`. Like list and call, each
 * takes a URL or a stdio command after `--`, and `--json`; a server that
 * asks for input first (a prompt or a read) is answered at the terminal.
 * The definitions only: their work (primitives-actions.ts) loads when one runs.
 */
export function primitiveCommands(
  io: CliIo,
  command: string[],
  setCode: (code: number) => void,
  version: string,
  withClientOptions: (cmd: Command) => Command,
): Command[] {
  const actions = () => import('./primitives-actions.js');
  const resources = withClientOptions(new Command('resources'))
    .description('list the resources and resource templates of a server: toolwright resources <url> | toolwright resources -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server')
    .option('--json', 'machine-readable JSON output')
    .action(async (url: string | undefined, options: ClientCommandOptions) =>
      setCode(await (await actions()).listResourcesCommand(url, command, options, io, version)),
    );

  const read = withClientOptions(new Command('read'))
    .description('read a resource: toolwright read <url> <uri> | toolwright read <uri> -- <command> [args...]')
    .argument('<operands...>', '[url] uri')
    .option('--json', 'the whole result as JSON (text and base64 blobs)')
    .option(
      '--output <file>',
      'write the contents to a file, mode 0600 (text as UTF-8, a blob as its bytes; several: <file>-1.<ext>, …) instead of the terminal',
    )
    .option('--force', 'let --output replace existing files')
    .action(async (operands: string[], options: ReadOptions) => setCode(await (await actions()).readResourceCommand(operands, command, options, io, version)));

  const prompts = withClientOptions(new Command('prompts'))
    .description('list the prompts of a server: toolwright prompts <url> | toolwright prompts -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server')
    .option('--json', 'machine-readable JSON output')
    .action(async (url: string | undefined, options: ClientCommandOptions) =>
      setCode(await (await actions()).listPromptsCommand(url, command, options, io, version)),
    );

  const prompt = withClientOptions(new Command('prompt'))
    .description("get a prompt's messages: toolwright prompt <url> <name> [key=value...] | toolwright prompt <name> [key=value...] -- <command> [args...]")
    .argument('<operands...>', '[url] name [key=value...]')
    .option('--json', 'machine-readable JSON output')
    .action(async (operands: string[], options: ClientCommandOptions) =>
      setCode(await (await actions()).getPromptCommand(operands, command, options, io, version)),
    );

  return [resources, read, prompts, prompt];
}
