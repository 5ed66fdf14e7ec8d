import type { InputRequestHandler } from '../../client/inputs/types.js';
import { ProgressBar } from '../progress-bar.js';
import { fillForm } from '../prompt-form.js';
import type { Prompter } from './prompter.js';

/**
 * The session's answers to the server's questions (elicitation, including
 * the server's own approval of destructive tools): asked through the
 * session's line editor, one question at a time. Ctrl-C or Ctrl-D during a
 * question answers "cancel"; a question the server withdraws is taken off
 * the screen. No progress bar is drawn over a question (ProgressBar.hold).
 */
export function sessionInputHandler(prompter: Prompter): InputRequestHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const turn = queue.then(async () => {
      if (request.signal.aborted || prompter.isEnded) return { action: 'cancel' as const };
      const release = ProgressBar.hold();
      const withdraw = () => prompter.withdraw();
      request.signal.addEventListener('abort', withdraw, { once: true });
      try {
        return await fillForm(
          request.params,
          async (query) => {
            const answer = await prompter.ask(query);
            return typeof answer === 'string' ? answer : undefined;
          },
          (text) => prompter.print(text),
        );
      } finally {
        request.signal.removeEventListener('abort', withdraw);
        release();
      }
    });
    queue = turn.catch(() => {});
    return turn;
  };
}
