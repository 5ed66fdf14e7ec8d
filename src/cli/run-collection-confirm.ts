import { createInterface } from 'node:readline';
import type { ToolClient } from '../client/client.js';
import { describeCalls, destructiveCalls } from '../collections/destructive.js';
import type { Collection, SavedCall } from '../collections/types.js';
import { UsageError, type CliIo } from './errors.js';
import { processTerminal, type Terminal } from './prompt.js';
import { sanitize, terminalGuard } from '../io/sanitize.js';

/** How much of a call's arguments the question shows. */
const MAX_ARGS_CHARS = 200;

function argumentsText(call: SavedCall): string {
  const text = JSON.stringify(call.arguments ?? {});
  return sanitize(text.length > MAX_ARGS_CHARS ? `${text.slice(0, MAX_ARGS_CHARS)}…` : text);
}

/**
 * Before a run: the calls that may destroy data, by the server's tools/list now and the rule
 * the console's Tools screen asks by (protocol/tool-annotations.ts), need a yes. `--yes` gives
 * it; a terminal on stdin is asked (default no); without one the run is refused (exit 1), since
 * a collection file may come from someone else and nobody is there to see what it calls.
 * False when the person answers no.
 */
export async function confirmDestructiveCalls(
  client: ToolClient,
  collection: Collection,
  yes: boolean | undefined,
  io: CliIo,
  terminal: Terminal = processTerminal(),
): Promise<boolean> {
  if (yes) return true;
  const calls = destructiveCalls(collection, await client.listTools());
  if (calls.length === 0) return true;
  const name = sanitize(collection.name);
  const count = `${calls.length} call${calls.length === 1 ? '' : 's'}`;
  if (!terminal.input.isTTY)
    throw new UsageError(
      `${name} has ${count} that may change or destroy data (${describeCalls(calls).map(sanitize).join(', ')}), and there is no terminal to confirm: run it with --yes to allow them`,
    );
  const lines = calls.map((call) => `  ${sanitize(describeCalls([call])[0])} ${argumentsText(call)}\n`).join('');
  io.stderr(`toolwright: ${name} has ${count} that may change or destroy data (the server does not say the tool is read-only or harmless):\n${lines}`);
  return askYes(terminal, `Run ${name}? [y/N] `);
}

/** One y/N question on the terminal; Ctrl-C, Ctrl-D or an empty answer is no. */
async function askYes(terminal: Terminal, question: string): Promise<boolean> {
  const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: terminal.output.isTTY === true });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      rl.once('close', () => resolve(undefined));
      rl.once('SIGINT', () => resolve(undefined));
      rl.question(terminalGuard(question), resolve);
    });
    const text = answer?.trim().toLowerCase();
    return text === 'y' || text === 'yes';
  } finally {
    rl.close();
  }
}
