import { CancelledError, TimeoutError } from './errors.js';

/**
 * Runs `work` with a signal that aborts at `deadline` (TimeoutError) or when
 * the caller's signal does (CancelledError): the time a call spends waiting
 * for answers counts against the same budget as its requests.
 */
export async function withDeadline<T>(
  method: string,
  budget: { deadline: number; timeoutMs: number; signal?: AbortSignal },
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const caller = budget.signal;
  const onAbort = () => controller.abort(new CancelledError(method, caller?.reason));
  const timer = setTimeout(() => controller.abort(new TimeoutError(method, budget.timeoutMs)), Math.max(0, budget.deadline - Date.now()));
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  }
}
