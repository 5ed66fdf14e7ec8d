/**
 * Lets a timer not hold the process open where timers can (Node, Bun, Deno's
 * `Deno.unrefTimer`); elsewhere (a Worker, where a timer is a number and no
 * process waits) there is nothing to do.
 */
export function unrefTimer(timer: unknown): void {
  if (typeof timer === 'object' && timer !== null && typeof (timer as { unref?: unknown }).unref === 'function') {
    (timer as { unref(): void }).unref();
    return;
  }
  const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
  if (typeof timer === 'number' && deno?.unrefTimer) deno.unrefTimer(timer);
}
