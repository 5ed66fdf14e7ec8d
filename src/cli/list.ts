import { ExitCode, type CliIo } from './errors.js';
import { formatToolList } from './format.js';
import { jsonForTerminal } from '../io/sanitize.js';
import { styleFor } from './style.js';
import { connectAtTerminal } from './connect.js';
import { forTheCommandLine } from '../client/connect/connect.js';
import { resolveTarget, type ClientCommandOptions } from '../client/connect/target.js';

/** `toolwright list <url> | -- <command…>`: the server's tools. */
export async function listCommand(url: string | undefined, command: string[], options: ClientCommandOptions, io: CliIo, version: string): Promise<number> {
  const target = resolveTarget(url, command, options);
  const client = await connectAtTerminal(target, options, io, version);
  try {
    const tools = await client.listTools().catch((err: unknown) => Promise.reject(forTheCommandLine(err, target)));
    if (options.json) {
      io.stdout(`${jsonForTerminal({ era: client.era, protocolVersion: client.protocolVersion, serverInfo: client.serverInfo ?? null, tools })}\n`);
    } else {
      io.stdout(formatToolList(tools, styleFor(process.stdout)));
    }
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
