/**
 * Resolves once `check` holds, looking every 10 ms. The deadline is a bound for a loaded
 * machine, not a wait: a test waits for the thing itself, never for a fixed time, because a
 * busy 2-core machine can outlast any fixed sleep.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
