import type { InputRequestHandler } from '../../client/inputs/types.js';
import { ownProcessGroup } from '../call-feedback.js';
import { connectAtTerminal } from '../connect.js';
import { resolveTarget, type ClientCommandOptions } from '../../client/connect/target.js';
import { UsageError, type CliIo } from '../errors.js';
import { styleFor } from '../style.js';
import { sessionInputHandler } from './input-requests.js';
import { Prompter } from './prompter.js';
import { SavedFiles } from './saved-files.js';
import { InteractiveSession } from './session.js';

export interface ConnectOptions extends ClientCommandOptions {
  /** Where images, audio and blobs are saved (default: a fresh private temp dir). */
  outputDir?: string;
}

/** A person answers within this unless --timeout says otherwise: Ctrl-C is their way out. */
const INTERACTIVE_CALL_TIMEOUT_MS = 10 * 60_000;

/**
 * `toolwright connect <url> | -- <command…>`: an interactive session with
 * one server, for people at a terminal (scripts have list and call).
 */
export async function connectCommand(url: string | undefined, command: string[], options: ConnectOptions, io: CliIo, version: string): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError('connect is an interactive session: run it at a terminal (from scripts, use toolwright list and toolwright call)');
  }
  // The server's own process group: the Ctrl-C that cancels a call must not stop a stdio server too.
  const target = ownProcessGroup(resolveTarget(url, command, options));
  const where = 'url' in target ? String(target.url) : 'stdio';
  io.stderr(`toolwright: connecting to ${'url' in target ? String(target.url) : command.join(' ')}…\n`);
  // Both exist only once connected; a question before that (none is expected) is declined.
  let answer: InputRequestHandler | undefined;
  const session: { current?: InteractiveSession } = {};
  const client = await connectAtTerminal(target, options, io, version, {
    // Elicitation only: this session can show a form, not run a model or name roots.
    onInputRequest: (request) => (answer ? answer(request) : { action: 'decline' }),
    inputCapabilities: ['elicitation'],
    onToolsListChanged: () => session.current?.toolsChanged(),
  });
  // The line editor starts after connecting: until then Ctrl-C simply stops the command.
  const lines = new Prompter(process.stdin, process.stdout);
  try {
    const s = new InteractiveSession(client, lines, styleFor(process.stdout), new SavedFiles(options.outputDir), {
      where,
      callTimeoutMs: options.timeout === undefined ? INTERACTIVE_CALL_TIMEOUT_MS : undefined,
    });
    session.current = s;
    answer = sessionInputHandler(lines);
    return await s.run();
  } finally {
    lines.close();
    await client.close();
  }
}
