/** Text from a server, made safe to put in a report: no control or bidi characters, bounded length. */
export function clean(text: string, max = 300): string {
  const stripped = text
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g, '')
    .trim();
  return stripped.length > max ? `${stripped.slice(0, max)}…` : stripped;
}

/** The message of anything thrown, cleaned. */
export function messageOf(err: unknown): string {
  return clean(err instanceof Error ? err.message : String(err), 500);
}

/** Runs `work` bounded by `ms`; a late answer is dropped. */
export async function bounded<T>(ms: number, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`${what} did not finish within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
