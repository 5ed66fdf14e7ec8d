/**
 * Adds every entry to `into` under its key, or none of them: a key already
 * there, or given twice, throws `duplicate(key)` before anything changes.
 * Shared by the tool, prompt and resource registries, whose `add` is all or
 * nothing (a bad definition among several registers none).
 */
export function insertAllOrNone<T>(into: Map<string, T>, entries: readonly T[], keyOf: (entry: T) => string, duplicate: (key: string) => Error): void {
  const keys = new Set<string>();
  for (const entry of entries) {
    const key = keyOf(entry);
    if (into.has(key) || keys.has(key)) throw duplicate(key);
    keys.add(key);
  }
  for (const entry of entries) into.set(keyOf(entry), entry);
}

/**
 * Replaces the entries under `previous` keys with `next`, or changes nothing: a key of `next`
 * given twice, or held by an entry not being replaced, throws `duplicate(key)` first. The new
 * entries take the place of the first replaced one (a reloaded module's tools keep their place
 * in the list); with none, they go last. Used by `toolwright dev` to swap what one source
 * (a tools module, a prompts folder) contributes without touching the rest.
 */
export function replaceAllOrNone<T>(
  into: Map<string, T>,
  previous: Iterable<string>,
  next: readonly T[],
  keyOf: (entry: T) => string,
  duplicate: (key: string) => Error,
): void {
  const replaced = new Set(previous);
  const keys = new Set<string>();
  for (const entry of next) {
    const key = keyOf(entry);
    if ((into.has(key) && !replaced.has(key)) || keys.has(key)) throw duplicate(key);
    keys.add(key);
  }
  const kept = [...into];
  into.clear();
  let placed = false;
  for (const [key, value] of kept) {
    if (!replaced.has(key)) into.set(key, value);
    else if (!placed) {
      placed = true;
      for (const entry of next) into.set(keyOf(entry), entry);
    }
  }
  if (!placed) for (const entry of next) into.set(keyOf(entry), entry);
}
