import type { StdioTarget } from '../transports/stdio-client.js';
import type { ClientTarget } from '../types.js';
import { sanitize } from '../../io/sanitize.js';

/** How much of a stdio server's stderr is kept, and shown with a failure (issue #17). */
const KEPT_CHARS = 4 * 1024;
const SHOWN_LINES = 20;

/** The end of one server's stderr, bounded however much it writes. */
class StderrTail {
  private text = '';

  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-KEPT_CHARS);
  }

  /** The last lines, with terminal escapes and control characters removed: the text is the server's, not ours. */
  lines(): string[] {
    const lines = sanitize(this.text)
      .split('\n')
      .map((line) => line.trimEnd());
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-SHOWN_LINES);
  }
}

// Keyed by the target's onStderr callback: copies of the target (ownProcessGroup spreads it) keep it.
const tails = new WeakMap<object, StderrTail>();
const shown = new WeakMap<object, string[]>();

/**
 * The server's stderr kept (not shown) unless --verbose shows it as it comes:
 * a person sees it only when something went wrong, next to the error. Shown
 * as it comes, it is sanitized too (never handed the terminal as it is): a
 * sequence cut between two chunks loses its ESC in the first, and what is
 * left of it in the second is plain text.
 */
export function capturingStderr(target: StdioTarget, verbose: boolean | undefined): StdioTarget {
  if (verbose) return { ...target, stderr: 'capture', onStderr: (text) => void process.stderr.write(sanitize(text)) };
  const tail = new StderrTail();
  const onStderr = (text: string) => tail.push(text);
  tails.set(onStderr, tail);
  return { ...target, stderr: 'capture', onStderr };
}

/** Attaches what the target's server last wrote on stderr to `err`, for reportError to show. */
export function withServerStderr(err: unknown, target: ClientTarget): unknown {
  const tail = 'command' in target && target.onStderr ? tails.get(target.onStderr) : undefined;
  if (tail && err instanceof Error && !shown.has(err)) shown.set(err, tail.lines());
  return err;
}

/** The lines to show with `err`: undefined when its server's stderr was not captured. */
export function serverStderrOf(err: unknown): string[] | undefined {
  return err instanceof Error ? shown.get(err) : undefined;
}
