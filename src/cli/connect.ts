import type { ToolClient } from '../client/client.js';
import { connectClient } from '../client/connect/connect.js';
import type { ClientCommandOptions } from '../client/connect/target.js';
import type { ClientTarget, ToolClientOptions } from '../client/types.js';
import type { CliIo } from './errors.js';
import { cliInputHandler } from './prompt.js';

/**
 * Connects the way every client command does (client/connect: stored tokens, the hints a
 * failure gets), the server's questions answered at the terminal unless the command brings
 * its own answerer in `extra`.
 */
export function connectAtTerminal(
  target: ClientTarget,
  options: ClientCommandOptions,
  io: CliIo,
  version: string,
  extra: ToolClientOptions = {},
): Promise<ToolClient> {
  return connectClient(target, options, io, version, { onInputRequest: cliInputHandler(io), ...extra });
}
