/**
 * What every registry (tools, prompts, resources) shares: a `version` that
 * each change bumps, so pages cached for an older version are rebuilt, and
 * listeners told of each change, so clients hear their `list_changed`.
 * A subclass drops its own derived state in `dropCaches` and calls `changed()`.
 */
export abstract class ChangeTracked {
  private readonly listeners = new Set<() => void>();
  version = 0;

  /** Called after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets what was derived from the contents before this change (ordered lists). */
  protected abstract dropCaches(): void;

  protected changed(): void {
    this.version++;
    this.dropCaches();
    for (const listener of this.listeners) listener();
  }
}
