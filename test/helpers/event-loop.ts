/**
 * Watches the event loop: a 5 ms interval notes the longest time between two
 * of its turns. Work that holds the loop (a synchronous scan, a backtracking
 * regular expression) shows up as one long gap; work that yields keeps the
 * gaps short however long it runs in all.
 */
export function watchEventLoop(intervalMs = 5): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, intervalMs);
  return {
    /** Stops watching; the longest gap seen, in milliseconds. */
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}
