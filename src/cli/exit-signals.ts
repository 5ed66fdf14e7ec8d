/** The signals that end a command line program, and the exit code a shell reports for each (128 + its number). */
const ENDING_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * A signal that would end the CLI ends it through process.exit instead of the signal's default
 * action, so the 'exit' handlers run: a stdio server that call or connect started in a process
 * group of its own (out of reach of the terminal's Ctrl-C and hang-up) is stopped along with
 * the CLI instead of being left running (issue 21). Only when nothing else handles the signal:
 * serve's graceful shutdown and a call's Ctrl-C (which cancels it) have their own handlers.
 * For the process entry point only: in-process callers (tests) keep their own signal handling.
 */
export function exitThroughHandlersOnSignals(): void {
  for (const [signal, code] of Object.entries(ENDING_SIGNALS)) {
    const onSignal = () => {
      if (process.listenerCount(signal) === 1) process.exit(code);
    };
    process.on(signal, onSignal);
  }
}
