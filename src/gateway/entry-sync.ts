import type { ToolServer } from '../server/server.js';

export type EntryKind = 'tool' | 'prompt' | 'resource' | 'resource template';

/** Which mount registered each gateway entry of a server, so that a clash can name both sources. */
const owners = new WeakMap<ToolServer, Map<string, string>>();

export function ownersOf(server: ToolServer): Map<string, string> {
  let map = owners.get(server);
  if (!map) owners.set(server, (map = new Map()));
  return map;
}

/** How one kind of entry is kept in a server's registry. */
export interface EntrySlot<T> {
  kind: EntryKind;
  has(key: string): boolean;
  add(entry: T): void;
  remove(key: string): void;
}

export interface Clash {
  kind: EntryKind;
  key: string;
  /** The other source: another upstream, or the server's own entries. */
  other: string;
}

/**
 * Brings one mount's entries of one kind in line with what its upstream lists now: those gone are
 * removed, those changed replaced, new ones added. An entry whose name another source holds is
 * refused (the clash is returned, naming both); one the registry refuses (a bad schema) is left
 * out and reported. `current` (key → fingerprint of what was registered) is updated in place.
 */
export function syncEntries<T>(
  server: ToolServer,
  mountName: string,
  slot: EntrySlot<T>,
  desired: Map<string, { entry: T; fingerprint: string }>,
  current: Map<string, string>,
  refused: (key: string, why: string) => void,
): Clash[] {
  const owner = ownersOf(server);
  const clashes: Clash[] = [];
  const id = (key: string) => `${slot.kind}:${key}`;
  for (const key of [...current.keys()]) {
    if (desired.has(key)) continue;
    slot.remove(key);
    current.delete(key);
    owner.delete(id(key));
  }
  for (const [key, { entry, fingerprint }] of desired) {
    if (current.get(key) === fingerprint) continue;
    if (!current.has(key) && slot.has(key)) {
      clashes.push({ kind: slot.kind, key, other: owner.get(id(key)) ?? "the server's own" });
      continue;
    }
    if (current.has(key)) slot.remove(key);
    try {
      slot.add(entry);
      current.set(key, fingerprint);
      owner.set(id(key), `upstream "${mountName}"`);
    } catch (err) {
      current.delete(key);
      owner.delete(id(key));
      refused(key, (err as Error).message);
    }
  }
  return clashes;
}
