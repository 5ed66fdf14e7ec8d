import { McpRpcError } from '../client/errors.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import { buildArguments } from './args.js';
import { connectAtTerminal } from './connect.js';
import { forTheCommandLine } from '../client/connect/connect.js';
import { resolveTarget, type ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, InterruptedError, UsageError, type CliIo } from './errors.js';
import { formatCallResult } from './format.js';
import { INTERRUPTED_CLOSE_GRACE_MS, ownProcessGroup, withCallFeedback } from './call-feedback.js';
import { styleFor } from './style.js';
import { cliInputHandler, processTerminal, type Terminal } from './prompt.js';
import { jsonForTerminal, sanitize } from '../io/sanitize.js';
import { binaryContentsOfCall, writeOutputFiles } from './output-files.js';
import { taskRequiredRefusal, withTaskFeedback } from './task.js';

export interface CallOptions extends Omit<ClientCommandOptions, 'json'> {
  args?: string;
  /** Show the structured content even when the text already carries it. */
  structured?: boolean;
  /** Let the server run the call as a task and follow it (task.ts). */
  task?: boolean;
  /** true: JSON output; a JSON object: JSON output and the arguments (`--json '{…}'`, as the synopsis in issue #2 reads). */
  json?: boolean | string;
  /** Save the result's images, audio and blobs there (output-files.ts). */
  output?: string;
  /** Let --output replace existing files. */
  force?: boolean;
}

/**
 * `toolwright call <url> <tool> [key=value…]` or `toolwright call <tool>
 * [key=value…] -- <command…>`. Exit 3 when the tool reports an error. When
 * the server asks the user something (a form, or approval of a destructive
 * tool), the user answers at the terminal; without one the CLI declines.
 */
export async function callCommand(
  operands: string[],
  command: string[],
  given: CallOptions,
  io: CliIo,
  version: string,
  terminal: () => Terminal = processTerminal,
): Promise<number> {
  const { options, operands: rest } = readJsonFlag(given, operands);
  operands = rest;
  // With a stdio command after --, there is no URL operand.
  const url = command.length ? undefined : operands[0];
  const [name, ...pairs] = command.length ? operands : operands.slice(1);
  if (options.force && options.output === undefined) throw new UsageError('--force applies to --output only');
  if (!name) throw new UsageError('which tool? e.g. toolwright call http://127.0.0.1:3000/mcp calculate_sum a=1 b=2');
  const target = ownProcessGroup(resolveTarget(url, command, options));
  const client = await connectAtTerminal(target, options, io, version, { onInputRequest: cliInputHandler(io, terminal), inputCapabilities: ['elicitation'] });
  let interrupted = false;
  try {
    const tools = await client.listTools().catch((err: unknown) => Promise.reject(forTheCommandLine(err, target)));
    const tool = tools.find((t) => t.name === name);
    const noSuchTool = () => {
      const names = tools
        .slice(0, 20)
        .map((t) => sanitize(t.name))
        .join(', ');
      return new UsageError(`the server has no tool ${JSON.stringify(sanitize(name))}${names ? `; it has: ${names}${tools.length > 20 ? ', …' : ''}` : ''}`);
    };
    // An HTTP server lists only the tools the caller's token may call: an unlisted one may need a
    // scope not granted yet, so it is sent, and the server says which (403), or that there is none.
    if (!tool && !('url' in target)) throw noSuchTool();
    const args = buildArguments(pairs, options.args, tool?.inputSchema ?? { type: 'object' }, (note) => io.stderr(`toolwright: ${note}\n`));
    // Progress on a terminal, Ctrl-C cancels; --timeout is the client's default, set by connectClient.
    const result = await withCallFeedback((callOptions) => client.callTool(name, args, options.task ? withTaskFeedback(callOptions, io) : callOptions)).catch(
      (err: unknown) =>
        Promise.reject(
          (!tool && err instanceof McpRpcError && err.code === ErrorCode.InvalidParams ? noSuchTool() : undefined) ??
            (options.task ? undefined : taskRequiredRefusal(err, name)) ??
            forTheCommandLine(err, target),
        ),
    );
    if (options.output !== undefined) writeOutputFiles(options.output, binaryContentsOfCall(result), options.force, io);
    if (options.json) io.stdout(`${jsonForTerminal(result)}\n`);
    else if (result.isError) io.stderr(`toolwright: the tool reported an error:\n${formatCallResult(result, { style: styleFor(process.stderr) })}`);
    else io.stdout(formatCallResult(result, { style: styleFor(process.stdout), structured: options.structured }));
    return result.isError ? ExitCode.toolError : ExitCode.ok;
  } catch (err) {
    interrupted = err instanceof InterruptedError;
    throw err;
  } finally {
    // The user wants out: a stdio server that does not stop on its own is stopped soon (its whole group).
    await client.close(interrupted ? { graceMs: INTERRUPTED_CLOSE_GRACE_MS } : {});
  }
}

/**
 * `--json` takes an optional value: a JSON object is the arguments; anything
 * else was an operand the option swallowed (`call --json URL tool`), so it
 * goes back in front of the operands.
 */
function readJsonFlag(given: CallOptions, operands: string[]): { options: CallOptions & { json?: boolean }; operands: string[] } {
  if (typeof given.json !== 'string') return { options: { ...given, json: given.json === true }, operands };
  if (!given.json.trimStart().startsWith('{')) return { options: { ...given, json: true }, operands: [given.json, ...operands] };
  if (given.args !== undefined) throw new UsageError("give the arguments once: --json '{…}' or --args '{…}', not both");
  return { options: { ...given, json: true, args: given.json }, operands };
}
