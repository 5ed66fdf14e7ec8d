import { nodeCrypto } from '../runtime/lazy-crypto.js';
import type { Logger } from '../runtime/logger.js';

/** At most this many stray rejections are logged in full per window; the rest are counted. */
const REJECTIONS_LOGGED_PER_WINDOW = 20;
const REJECTION_WINDOW_MS = 10_000;

/**
 * What `toolwright serve` does with errors nobody handled, so that one tool's
 * bug does not end every caller's calls (docs/server.md#shutting-down-and-errors-nobody-handled).
 *
 * - `unhandledRejection`: a promise left rejected with no handler — typically
 *   a tool's fire-and-forget work failing after its call was answered. The
 *   code that threw has already unwound; rejecting left nothing half-done. It
 *   is logged (error, JSON on stderr) with a correlation id, and serving goes
 *   on. Node's default (since 15) would end the process, and every call in it.
 * - `uncaughtException`: a throw out of a callback (a timer, an event
 *   emitter) may have stopped code — ours included — half-way through
 *   changing state, and Node documents that resuming is not safe. It is
 *   logged (fatal) with a correlation id and `onFatal` is told: `serve` then
 *   shuts down gracefully (calls in flight get the grace period, the audit
 *   trail is committed) and exits with code 2, for a supervisor to restart it.
 *
 * Returns the uninstall.
 */
export function installProcessGuards(logger: Logger, onFatal: (correlationId: string) => void): () => void {
  let windowEnds = 0;
  let logged = 0;
  let suppressed = 0;
  const onRejection = (reason: unknown) => {
    const now = performance.now();
    if (now >= windowEnds) {
      if (suppressed)
        safeLog(
          logger,
          'warn',
          { suppressed },
          `${suppressed} more unhandled promise rejection(s) in the last ${REJECTION_WINDOW_MS / 1000} s were not logged one by one`,
        );
      windowEnds = now + REJECTION_WINDOW_MS;
      logged = 0;
      suppressed = 0;
    }
    // A tool that leaks a rejection on every call must not turn the log into a flood.
    if (logged >= REJECTIONS_LOGGED_PER_WINDOW) {
      suppressed++;
      return;
    }
    logged++;
    safeLog(
      logger,
      'error',
      { correlationId: nodeCrypto().randomUUID(), err: asError(reason) },
      'unhandled promise rejection (a bug in a tool or the code it uses); the server goes on serving',
    );
  };
  const onException = (err: unknown) => {
    const correlationId = nodeCrypto().randomUUID();
    safeLog(logger, 'fatal', { correlationId, err: asError(err) }, 'uncaught exception; the server shuts down gracefully, since its state may be inconsistent');
    onFatal(correlationId);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}

function asError(value: unknown): unknown {
  return value instanceof Error ? value : { value: String(value).slice(0, 1000) };
}

/** A logger that throws here would throw out of the process-level handler: fall back to a plain line. */
function safeLog(logger: Logger, level: 'warn' | 'error' | 'fatal', fields: Record<string, unknown>, message: string): void {
  try {
    logger[level](fields, message);
  } catch {
    try {
      process.stderr.write(`${JSON.stringify({ level, msg: message, correlationId: fields.correlationId })}\n`);
    } catch {
      // stderr is gone too: nothing more to do.
    }
  }
}
