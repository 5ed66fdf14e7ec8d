import type { CallToolOptions, ClientTarget } from '../client/types.js';
import { CancelledError } from '../client/errors.js';
import { ExitCode, InterruptedError } from './errors.js';
import { ProgressBar } from './progress-bar.js';
import { styleFor } from './style.js';

/**
 * After Ctrl-C, how long a stdio server gets at each step of its shutdown (stdin closed, then
 * SIGTERM to its process group, then SIGKILL): it was told to cancel, the user is waiting.
 */
export const INTERRUPTED_CLOSE_GRACE_MS = 500;

/**
 * Runs one tool call the way a person at a terminal expects: the server's
 * progress as a bar on stderr (only when stderr is a terminal, so pipes and
 * `--json` output stay clean), and Ctrl-C cancels the call (the client tells
 * the server to stop) instead of killing the CLI mid-request. A second
 * Ctrl-C, while the cancellation is under way, leaves at once.
 */
export async function withCallFeedback<T>(run: (options: CallToolOptions) => Promise<T>, stderr: NodeJS.WriteStream = process.stderr): Promise<T> {
  const controller = new AbortController();
  const bar = stderr.isTTY
    ? new ProgressBar(
        (text) => void stderr.write(text),
        styleFor(stderr),
        () => stderr.columns || 80,
      )
    : undefined;
  const onSigint = () => {
    if (!controller.signal.aborted) {
      bar?.clear();
      controller.abort(new Error('interrupted (Ctrl-C)'));
      return;
    }
    // The second Ctrl-C: leave now. process.exit (not the signal's default action) runs the
    // 'exit' handlers, which take a stdio server's process group down with us.
    process.removeListener('SIGINT', onSigint);
    process.exit(ExitCode.interrupted);
  };
  process.on('SIGINT', onSigint);
  try {
    return await run({ signal: controller.signal, ...(bar ? { onProgress: (p) => bar.update(p) } : {}) });
  } catch (err) {
    if (controller.signal.aborted && err instanceof CancelledError) throw new InterruptedError('the call was cancelled (Ctrl-C); the server was told to stop');
    throw err;
  } finally {
    bar?.clear();
    process.removeListener('SIGINT', onSigint);
  }
}

/**
 * A stdio server started in a process group of its own: the Ctrl-C pressed
 * at the terminal reaches the CLI, which cancels the call as the protocol
 * says, instead of stopping the server mid-call too.
 */
export function ownProcessGroup(target: ClientTarget): ClientTarget {
  return 'command' in target ? { ...target, ownProcessGroup: true } : target;
}
