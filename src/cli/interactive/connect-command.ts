import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputRejectedError } from '../../client/errors.js';
import type { InputRequest, InputRequestHandler, InputResult } from '../../client/inputs/types.js';
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
  /** `--root <path>` (repeatable): folders offered to the server as its roots (roots/list). */
  root?: string[];
}

/** The `--root` folders as `file://` URIs (roots.mdx: a root MUST be one), relative ones against the working folder. */
function rootUris(paths: string[]): string[] {
  return paths.map((path) => pathToFileURL(resolve(path)).href);
}

/** A question asked before the session is there to ask the person: roots are known, the rest is declined or rejected. */
function beforeSession(request: InputRequest, roots: string[]): InputResult {
  if (request.method === 'roots/list') return { roots: roots.map((uri) => ({ uri })) };
  if (request.method === 'sampling/createMessage') throw new InputRejectedError('the session is not ready to answer yet');
  return { action: 'decline' };
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
  const roots = rootUris(options.root ?? []);
  // Both exist only once connected; a question before that is declined (roots are answered from --root at once).
  let answer: InputRequestHandler | undefined;
  const session: { current?: InteractiveSession } = {};
  const client = await connectAtTerminal(target, options, io, version, {
    // Forms, and sampling where the person writes the model's reply; roots only when --root names some.
    onInputRequest: (request) => (answer ? answer(request) : beforeSession(request, roots)),
    inputCapabilities: roots.length ? ['elicitation', 'sampling', 'roots'] : ['elicitation', 'sampling'],
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
    answer = sessionInputHandler(lines, roots);
    return await s.run();
  } finally {
    lines.close();
    await client.close();
  }
}
