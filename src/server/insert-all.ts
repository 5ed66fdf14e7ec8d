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
