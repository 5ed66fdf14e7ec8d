/** Why `serve` stops: a signal, or an uncaught exception (process-guards.ts). */
export type ShutdownReason = 'SIGINT' | 'SIGTERM' | 'uncaughtException';

/**
 * Exit codes when a second request arrives while the graceful shutdown runs:
 * the process exits at once, as a shell reports a process the signal killed
 * (128 + the signal's number); a second uncaught exception exits with 2.
 */
const IMMEDIATE_EXIT_CODES: Record<ShutdownReason, number> = { SIGINT: 130, SIGTERM: 143, uncaughtException: 2 };

export interface ShutdownRequests {
  /** Resolves with the first reason to stop. */
  readonly requested: Promise<ShutdownReason>;
  /** Asks for a shutdown (the crash guard does); a second request exits at once. */
  request(reason: ShutdownReason): void;
  /** Removes the signal handlers (the process's defaults come back). */
  dispose(): void;
}

/**
 * The first SIGINT or SIGTERM (or uncaught exception) starts a graceful
 * shutdown; a second one, while it runs, exits the process at once without
 * waiting for calls in flight (records already committed stay in the audit
 * trail; calls not yet answered have none).
 */
export function shutdownRequests(say: (line: string) => void, exit: (code: number) => void = (code) => process.exit(code)): ShutdownRequests {
  let first: ShutdownReason | undefined;
  let resolveRequested!: (reason: ShutdownReason) => void;
  const requested = new Promise<ShutdownReason>((resolve) => (resolveRequested = resolve));
  const request = (reason: ShutdownReason) => {
    if (first === undefined) {
      first = reason;
      resolveRequested(reason);
      return;
    }
    say(`toolwright: ${reason} during shutdown: exiting now, without waiting for calls in flight\n`);
    exit(IMMEDIATE_EXIT_CODES[reason]);
  };
  const onSigint = () => request('SIGINT');
  const onSigterm = () => request('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  return {
    requested,
    request,
    dispose: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    },
  };
}
