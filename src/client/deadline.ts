import { CancelledError, TimeoutError } from './errors.js';

/** A caller's time allowed: a deadline (with the timeout the TimeoutError names), its AbortSignal, or both. */
export type Budget = { signal?: AbortSignal } & ({ deadline: number; timeoutMs: number } | { deadline?: undefined });

/**
 * Runs `work` with a signal that aborts at `deadline` (TimeoutError) or when
 * the caller's signal does (CancelledError): the time a call spends waiting
 * for answers counts against the same budget as its requests.
 */
export async function withDeadline<T>(method: string, budget: Budget, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const caller = budget.signal;
  const onAbort = () => controller.abort(new CancelledError(method, caller?.reason));
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (budget.deadline !== undefined) {
    const { timeoutMs } = budget;
    timer = setTimeout(() => controller.abort(new TimeoutError(method, timeoutMs)), Math.max(0, budget.deadline - Date.now()));
  }
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  }
}

/**
 * Waits for `shared`, work other callers may be waiting for too, until
 * `signal` aborts: then this caller alone stops waiting (with the signal's
 * reason) and the work goes on for the others.
 */
export function untilAborted<T>(shared: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Waits for `shared` within a caller's budget: its abort or deadline ends this wait, not the work. */
export function waitWithin<T>(method: string, budget: Budget, shared: Promise<T>): Promise<T> {
  return withDeadline(method, budget, (aborted) => untilAborted(shared, aborted));
}
