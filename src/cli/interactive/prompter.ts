import { createInterface, type Interface } from 'node:readline';
import { terminalGuard } from '../../io/sanitize.js';

/** What tab completion offers for the line typed so far: candidates, and the part of the line they complete. */
export type Completer = (line: string) => [string[], string];

/** Ctrl-C while a question was asked: the question is withdrawn (as opposed to undefined: input ended). */
export const INTERRUPTED = Symbol('interrupted');
export type Answer = string | undefined | typeof INTERRUPTED;

const NO_COMPLETIONS: Completer = (line) => [[], line];

/**
 * The session's one line editor (node:readline on the terminal): every
 * question, from the command prompt to a form field, is asked through it, so
 * tab completion, line editing and Ctrl-C behave the same everywhere.
 * A line typed while nothing is asked (during a call) is kept for the
 * command prompt only, and dropped when anything else is asked next: a stray
 * Enter must never become the answer to a question, such as a confirmation.
 * Ctrl-C withdraws the question being asked; when none is, `onInterrupt`
 * hears it (the session cancels the running call).
 */
export class Prompter {
  private readonly rl: Interface;
  private completer: Completer = NO_COMPLETIONS;
  private pending?: (answer: Answer) => void;
  /** Lines typed while nothing was asked: kept for the command prompt only. */
  private typedAhead: string[] = [];
  private ended = false;
  /** What Tab completes while nothing is asked (a command typed ahead during a call). */
  idleCompleter: Completer = NO_COMPLETIONS;
  /** Ctrl-C while no question is asked. */
  onInterrupt?: () => void;
  /** Input ended (Ctrl-D on an empty line, or the terminal went away). */
  onEnd?: () => void;

  constructor(
    input: NodeJS.ReadableStream & { isTTY?: boolean },
    readonly output: NodeJS.WritableStream & { columns?: number },
  ) {
    this.rl = createInterface({ input, output, terminal: true, historySize: 500, completer: (line: string) => this.completer(line), tabSize: 2 });
    this.rl.on('line', (line) => {
      const answer = this.pending;
      this.pending = undefined;
      if (answer) answer(line);
      else if (this.typedAhead.length < 16) this.typedAhead.push(line);
    });
    this.rl.on('SIGINT', () => {
      const answer = this.pending;
      if (!answer) return this.onInterrupt?.();
      this.pending = undefined;
      this.clearLine();
      this.output.write('^C\n');
      answer(INTERRUPTED);
    });
    this.rl.on('close', () => {
      this.ended = true;
      const answer = this.pending;
      this.pending = undefined;
      if (answer) {
        this.output.write('\n');
        answer(undefined);
      }
      this.onEnd?.();
    });
  }

  get columns(): number {
    return this.output.columns || 80;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /**
   * Asks one question; resolves with the line, INTERRUPTED (Ctrl-C) or
   * undefined (input ended). Only commands (`remember`) stay in the
   * up-arrow history; form answers do not.
   */
  ask(query: string, completer: Completer = NO_COMPLETIONS, remember = false): Promise<Answer> {
    if (this.ended) return Promise.resolve(undefined);
    // A command typed ahead (during a call) is the next command; it never answers anything else.
    const ahead = this.typedAhead.shift();
    if (!remember) this.typedAhead = [];
    else if (ahead !== undefined) return Promise.resolve(ahead);
    // One question at a time: a second one withdraws the first.
    this.pending?.(INTERRUPTED);
    this.completer = completer;
    this.rl.setPrompt(query);
    this.rl.prompt();
    return new Promise<Answer>((resolve) => {
      this.pending = (answer) => {
        this.completer = this.idleCompleter;
        // readline added the line to its history before emitting it.
        if (typeof answer === 'string' && !remember) this.forget(answer);
        resolve(answer);
      };
    });
  }

  /** Withdraws the question being asked, if any (the server no longer wants the answer). */
  withdraw(): void {
    const answer = this.pending;
    if (!answer) return;
    this.pending = undefined;
    this.clearLine();
    this.output.write('\n');
    answer(INTERRUPTED);
  }

  /** Writes text in the flow of the session (between questions), through the terminal's last net (io/sanitize.ts). */
  print(text: string): void {
    this.output.write(terminalGuard(text));
  }

  /**
   * Writes a notice that arrives on its own (the tool list changed) without
   * breaking the line being typed: the prompt and the typed text are drawn
   * again below it.
   */
  notify(text: string): void {
    if (!this.pending) return void this.output.write(terminalGuard(text));
    this.output.write('\r\x1b[2K');
    this.output.write(terminalGuard(text));
    this.rl.prompt(true);
  }

  private forget(line: string): void {
    const history = (this.rl as unknown as { history?: string[] }).history;
    if (history?.[0] === line) history.shift();
  }

  close(): void {
    this.rl.close();
  }

  private clearLine(): void {
    // Ctrl-E then Ctrl-U: the whole line, wherever the cursor was.
    this.rl.write(null, { ctrl: true, name: 'e' });
    this.rl.write(null, { ctrl: true, name: 'u' });
  }
}
