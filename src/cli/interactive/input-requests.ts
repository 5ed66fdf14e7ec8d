import type { InputRequestHandler } from '../../client/inputs/types.js';
import { ProgressBar } from '../progress-bar.js';
import { fillForm } from '../prompt-form.js';
import { InputRejectedError } from '../../client/errors.js';
import { answerSamplingAtTerminal } from './sampling-prompt.js';
import type { Prompter } from './prompter.js';

/**
 * The session's answers to the server's questions (elicitation, including
 * the server's own approval of destructive tools, and sampling, where the
 * person writes the model's reply; roots are the `--root` folders, answered
 * without asking): asked through the
 * session's line editor, one question at a time. Ctrl-C or Ctrl-D during a
 * question answers "cancel"; a question the server withdraws is taken off
 * the screen. No progress bar is drawn over a question (ProgressBar.hold).
 */
export function sessionInputHandler(prompter: Prompter, roots: readonly string[] = []): InputRequestHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    // Roots need nobody's answer: never queued behind a question.
    if (request.method === 'roots/list') return { roots: roots.map((uri) => ({ uri })) };
    const turn = queue.then(async () => {
      if (request.signal.aborted || prompter.isEnded) {
        if (request.method === 'sampling/createMessage') throw new InputRejectedError('nobody is at the terminal to answer');
        return { action: 'cancel' as const };
      }
      const release = ProgressBar.hold();
      const withdraw = () => prompter.withdraw();
      request.signal.addEventListener('abort', withdraw, { once: true });
      const ask = async (query: string) => {
        const answer = await prompter.ask(query);
        return typeof answer === 'string' ? answer : undefined;
      };
      const print = (text: string) => prompter.print(text);
      try {
        if (request.method === 'sampling/createMessage')
          return await answerSamplingAtTerminal(request.params, request.toolName, { ask, print, interactive: process.stdin.isTTY === true });
        return await fillForm(request.params, ask, print);
      } finally {
        request.signal.removeEventListener('abort', withdraw);
        release();
      }
    });
    queue = turn.catch(() => {});
    return turn;
  };
}
