import { Command } from 'commander';
import type { ToolClient } from '../client/client.js';
import type { ClientTarget } from '../client/types.js';
import { connectAtTerminal } from './connect.js';
import { forTheCommandLine } from '../client/connect/connect.js';
import { resolveTarget, type ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { describeContents, formatPrompt, formatPromptList, formatResourceList } from './primitives-format.js';
import { jsonForTerminal, sanitize } from '../io/sanitize.js';
import { writeOutputFiles, type OutputContent } from './output-files.js';
import { styleFor } from './style.js';

interface ReadOptions extends ClientCommandOptions {
  output?: string;
  force?: boolean;
}

/**
 * The server's other primitives from the command line: `resources`, `read
 * <uri>`, `prompts` and `prompt <name> key=value…`. Like list and call, each
 * takes a URL or a stdio command after `--`, and `--json`; a server that
 * asks for input first (a prompt or a read) is answered at the terminal.
 */
export function primitiveCommands(
  io: CliIo,
  command: string[],
  setCode: (code: number) => void,
  version: string,
  withClientOptions: (cmd: Command) => Command,
): Command[] {
  const resources = withClientOptions(new Command('resources'))
    .description('list the resources and resource templates of a server: toolwright resources <url> | toolwright resources -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server')
    .option('--json', 'machine-readable JSON output')
    .action(async (url: string | undefined, options: ClientCommandOptions) =>
      setCode(
        await withClient(url, command, options, io, version, async (client) => {
          const [listed, templates] = [await client.listResources(), await client.listResourceTemplates()];
          io.stdout(
            options.json
              ? `${jsonForTerminal({ resources: listed, resourceTemplates: templates })}\n`
              : formatResourceList(listed, templates, styleFor(process.stdout)),
          );
          return ExitCode.ok;
        }),
      ),
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
    .action(async (operands: string[], options: ReadOptions) => {
      if (options.force && options.output === undefined) throw new UsageError('--force applies to --output only');
      const { url, rest } = splitOperands(operands, command, 1, 'which resource? e.g. toolwright read http://127.0.0.1:3000/mcp test://static-text');
      setCode(
        await withClient(url, command, options, io, version, async (client) => {
          const result = await client.readResource(rest[0]);
          if (options.json) io.stdout(`${jsonForTerminal(result)}\n`);
          else if (options.output !== undefined) writeOutputFiles(options.output, resourceContents(result), options.force, io);
          else printContents(result, io);
          return ExitCode.ok;
        }),
      );
    });

  const prompts = withClientOptions(new Command('prompts'))
    .description('list the prompts of a server: toolwright prompts <url> | toolwright prompts -- <command> [args...]')
    .argument('[url]', 'http(s):// URL of a Streamable HTTP server')
    .option('--json', 'machine-readable JSON output')
    .action(async (url: string | undefined, options: ClientCommandOptions) =>
      setCode(
        await withClient(url, command, options, io, version, async (client) => {
          const listed = await client.listPrompts();
          io.stdout(options.json ? `${jsonForTerminal({ prompts: listed })}\n` : formatPromptList(listed, styleFor(process.stdout)));
          return ExitCode.ok;
        }),
      ),
    );

  const prompt = withClientOptions(new Command('prompt'))
    .description("get a prompt's messages: toolwright prompt <url> <name> [key=value...] | toolwright prompt <name> [key=value...] -- <command> [args...]")
    .argument('<operands...>', '[url] name [key=value...]')
    .option('--json', 'machine-readable JSON output')
    .action(async (operands: string[], options: ClientCommandOptions) => {
      const { url, rest } = splitOperands(operands, command, 1, 'which prompt? e.g. toolwright prompt http://127.0.0.1:3000/mcp code_review code="x = 1"');
      const [name, ...pairs] = rest;
      const args = promptArguments(pairs);
      setCode(
        await withClient(url, command, options, io, version, async (client) => {
          const result = await client.getPrompt(name, args);
          io.stdout(options.json ? `${jsonForTerminal(result)}\n` : formatPrompt(result, styleFor(process.stdout)));
          return ExitCode.ok;
        }),
      );
    });

  return [resources, read, prompts, prompt];
}

export async function withClient(
  url: string | undefined,
  command: string[],
  options: ClientCommandOptions,
  io: CliIo,
  version: string,
  work: (client: ToolClient) => Promise<number>,
): Promise<number> {
  const target: ClientTarget = resolveTarget(url, command, options);
  const client = await connectAtTerminal(target, options, io, version);
  try {
    return await work(client).catch((err: unknown) => Promise.reject(forTheCommandLine(err, target)));
  } finally {
    await client.close();
  }
}

/** With a stdio command after --, there is no URL operand; at least `min` operands follow it. */
export function splitOperands(operands: string[], command: string[], min: number, usage: string): { url?: string; rest: string[] } {
  const url = command.length ? undefined : operands[0];
  const rest = command.length ? operands : operands.slice(1);
  if (rest.length < min) throw new UsageError(usage);
  return { url, rest };
}

/** `key=value` pairs: prompt arguments are strings, taken as typed (the first "=" splits). */
function promptArguments(pairs: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`prompt arguments are key=value pairs, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    if (Object.hasOwn(args, key)) throw new UsageError(`argument ${JSON.stringify(key)} is given twice`);
    args[key] = pair.slice(eq + 1);
  }
  return args;
}

/** Text to the terminal (sanitized: it comes from the server); binary contents only described. */
function printContents(result: Awaited<ReturnType<ToolClient['readResource']>>, io: CliIo): void {
  const texts = result.contents.filter((c): c is Extract<typeof c, { text: string }> => 'text' in c);
  if (texts.length === result.contents.length && texts.length === 1) {
    const text = process.stdout.isTTY ? sanitize(texts[0].text) : texts[0].text;
    io.stdout(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  io.stdout(describeContents(result));
  if (texts.length < result.contents.length) io.stderr('toolwright: binary contents are not printed; use --output <file> or --json\n');
}

/** Every content of a read, for --output: text as UTF-8, a blob as its bytes. */
function resourceContents(result: Awaited<ReturnType<ToolClient['readResource']>>): OutputContent[] {
  return result.contents.map((c) => ({
    bytes: 'text' in c ? Buffer.from(c.text, 'utf8') : Buffer.from(c.blob, 'base64'),
    mimeType: c.mimeType,
    what: `${'text' in c ? 'text' : 'blob'} of ${c.uri}`,
  }));
}
