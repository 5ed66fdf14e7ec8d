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

/** The work of `resources`, `read`, `prompts` and `prompt` (primitives.ts defines the commands). */

export interface ReadOptions extends ClientCommandOptions {
  output?: string;
  force?: boolean;
}

/** `resources`: the resources and resource templates of a server. */
export function listResourcesCommand(url: string | undefined, command: string[], options: ClientCommandOptions, io: CliIo, version: string): Promise<number> {
  return withClient(url, command, options, io, version, async (client) => {
    const [listed, templates] = [await client.listResources(), await client.listResourceTemplates()];
    io.stdout(
      options.json
        ? `${jsonForTerminal({ resources: listed, resourceTemplates: templates })}\n`
        : formatResourceList(listed, templates, styleFor(process.stdout)),
    );
    return ExitCode.ok;
  });
}

/** `read`: one resource's contents, to the terminal, as JSON or into files. */
export function readResourceCommand(operands: string[], command: string[], options: ReadOptions, io: CliIo, version: string): Promise<number> {
  if (options.force && options.output === undefined) throw new UsageError('--force applies to --output only');
  const { url, rest } = splitOperands(operands, command, 1, 'which resource? e.g. toolwright read http://127.0.0.1:3000/mcp test://static-text');
  return withClient(url, command, options, io, version, async (client) => {
    const result = await client.readResource(rest[0]);
    if (options.json) io.stdout(`${jsonForTerminal(result)}\n`);
    else if (options.output !== undefined) writeOutputFiles(options.output, resourceContents(result), options.force, io);
    else printContents(result, io);
    return ExitCode.ok;
  });
}

/** `prompts`: the prompts of a server. */
export function listPromptsCommand(url: string | undefined, command: string[], options: ClientCommandOptions, io: CliIo, version: string): Promise<number> {
  return withClient(url, command, options, io, version, async (client) => {
    const listed = await client.listPrompts();
    io.stdout(options.json ? `${jsonForTerminal({ prompts: listed })}\n` : formatPromptList(listed, styleFor(process.stdout)));
    return ExitCode.ok;
  });
}

/** `prompt`: one prompt's messages, its arguments given as key=value. */
export function getPromptCommand(operands: string[], command: string[], options: ClientCommandOptions, io: CliIo, version: string): Promise<number> {
  const { url, rest } = splitOperands(operands, command, 1, 'which prompt? e.g. toolwright prompt http://127.0.0.1:3000/mcp code_review code="x = 1"');
  const [name, ...pairs] = rest;
  const args = promptArguments(pairs);
  return withClient(url, command, options, io, version, async (client) => {
    const result = await client.getPrompt(name, args);
    io.stdout(options.json ? `${jsonForTerminal(result)}\n` : formatPrompt(result, styleFor(process.stdout)));
    return ExitCode.ok;
  });
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
