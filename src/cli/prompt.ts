import { createInterface } from 'node:readline';
import type { InputRequestHandler } from '../client/inputs/types.js';
import type { CliIo } from './errors.js';
import { ProgressBar } from './progress-bar.js';
import { fillForm, type Ask } from './prompt-form.js';
import { sanitize, terminalGuard } from '../io/sanitize.js';

/** Where the CLI talks to its user: answers come from `input`, prompts go to `output` (stderr, so stdout stays the result). */
export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
}

export const processTerminal = (): Terminal => ({ input: process.stdin, output: process.stderr });

/**
 * The CLI's answers to a server's questions. It declares elicitation only
 * (sampling and roots are never declared, so never asked). With a terminal on
 * stdin the user fills the form; without one nobody can answer, so the
 * question is declined and stderr says so. Questions are asked one at a time,
 * even when the server asks several at once.
 */
export function cliInputHandler(io: CliIo, terminal: () => Terminal = processTerminal): InputRequestHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const turn = queue.then(async () => {
      const message = sanitize(String(request.params.message ?? '')).trim();
      const term = terminal();
      if (!term.input.isTTY) {
        io.stderr(
          `toolwright: the server asks:\n${indent(message)}\ntoolwright: declined, because stdin is not a terminal (run the command interactively to answer)\n`,
        );
        return { action: 'decline' as const };
      }
      if (request.signal.aborted) return { action: 'cancel' as const };
      // A progress bar on the same terminal would draw over the question.
      const release = ProgressBar.hold();
      const reader = lineReader(term, request.signal);
      try {
        return await fillForm(request.params, reader.ask, (text) => void term.output.write(terminalGuard(text)));
      } finally {
        reader.close();
        release();
      }
    });
    queue = turn.catch(() => {});
    return turn;
  };
}

/**
 * Lines from the terminal, buffered (an answer typed ahead is kept). Ctrl-C,
 * Ctrl-D and the request's signal end the input, which cancels the form.
 */
function lineReader(term: Terminal, signal: AbortSignal): { ask: Ask; close(): void } {
  const rl = createInterface({ input: term.input, output: term.output, terminal: term.output.isTTY === true });
  const lines = rl[Symbol.asyncIterator]();
  const close = () => rl.close();
  rl.on('SIGINT', close);
  signal.addEventListener('abort', close, { once: true });
  return {
    ask: async (query) => {
      rl.setPrompt(query);
      rl.prompt();
      const next = await lines.next();
      return next.done ? undefined : String(next.value);
    },
    close: () => {
      signal.removeEventListener('abort', close);
      rl.close();
    },
  };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
