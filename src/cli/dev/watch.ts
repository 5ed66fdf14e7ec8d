import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** How long the watcher waits for more events before reporting: an editor's save is often several writes and a rename. */
const DEFAULT_DEBOUNCE_MS = 40;

/**
 * Watches what `toolwright dev` serves from, with fs.watch (no dependency): named files (a
 * tools module and what it imports, the config) through a watcher on each one's folder, so an
 * editor that saves by writing a new file and renaming it over the old one is still seen; and
 * whole folders (prompts, resources, skills), recursively. Events coalesce for `debounceMs`,
 * then `onChange` hears the keys whose files changed.
 */
export class DevWatcher {
  /** Folder → file name → keys watching that file. */
  private readonly files = new Map<string, Map<string, Set<string>>>();
  private readonly folderWatchers = new Map<string, FSWatcher>();
  private readonly trees = new Map<string, FSWatcher>();
  private readonly pending = new Set<string>();
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly onChange: (keys: Set<string>) => void,
    private readonly onError: (err: unknown) => void,
    private readonly debounceMs = DEFAULT_DEBOUNCE_MS,
  ) {}

  /** The files `key` depends on, replacing what it watched before. */
  watchFiles(key: string, paths: readonly string[]): void {
    for (const names of this.files.values()) for (const keys of names.values()) keys.delete(key);
    for (const path of paths) {
      const folder = dirname(path);
      let names = this.files.get(folder);
      if (!names) this.files.set(folder, (names = new Map()));
      let keys = names.get(basename(path));
      if (!keys) names.set(basename(path), (keys = new Set()));
      keys.add(key);
      this.watchFolderOf(folder);
    }
  }

  /** Everything below `folder` is `key`'s. */
  watchTree(key: string, folder: string): void {
    const id = `${key}\0${folder}`;
    if (this.trees.has(id)) return;
    const watcher = this.open(folder, true, () => this.mark(key));
    if (watcher) this.trees.set(id, watcher);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of [...this.folderWatchers.values(), ...this.trees.values()]) watcher.close();
    this.folderWatchers.clear();
    this.trees.clear();
  }

  private watchFolderOf(folder: string): void {
    if (this.folderWatchers.has(folder)) return;
    const watcher = this.open(folder, false, (name) => {
      for (const key of this.files.get(folder)?.get(name) ?? []) this.mark(key);
    });
    if (watcher) this.folderWatchers.set(folder, watcher);
  }

  private open(folder: string, recursive: boolean, seen: (name: string) => void): FSWatcher | undefined {
    try {
      const watcher = watch(folder, { recursive, persistent: false }, (_event, name) => {
        if (name !== null) seen(basename(name.toString()));
      });
      watcher.on('error', this.onError);
      return watcher;
    } catch (err) {
      this.onError(err);
      return undefined;
    }
  }

  private mark(key: string): void {
    if (this.closed) return;
    this.pending.add(key);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const keys = new Set(this.pending);
      this.pending.clear();
      this.onChange(keys);
    }, this.debounceMs);
  }
}
