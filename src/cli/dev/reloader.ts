import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type LoadedConfig, loadConfig } from '../../config/load.js';
import { locateState } from '../../config/state-dir.js';
import type { ToolServer } from '../../server/server.js';
import type { Tool } from '../../server/tool.js';
import { UsageError, type CliIo } from '../errors.js';
import { type ConfigSources, reloadConfigSources, restartNeeded, sourcesOf } from './config-sources.js';
import { bundleToolsModule, ModuleLoadError, shown } from './module-bundle.js';
import { checkTools, type ConfigOwned, ownedBy, type SourceKind, swapConfigKinds } from './swap.js';
import { DevTypeCheck, findProjectTsc, isTypeScript } from './typecheck.js';
import { DevWatcher } from './watch.js';

/** What the console (GET dev/reload) and tests read of the reloads: the last failure stays until a reload succeeds. */
export interface ReloadStatus {
  /** Reloads applied since start. */
  reloads: number;
  /** When the last reload was applied (ISO time). */
  lastReloadAt?: string;
  /** The last reload's failure, as the terminal showed it; absent once a reload succeeds. The server serves the last good version meanwhile. */
  error?: { message: string; at: string };
}

interface ModuleState {
  names: string[];
  files: string[];
}

const CONFIG = 'config';
const FOLDER_KINDS: readonly SourceKind[] = ['prompts', 'resources', 'skills'];
const moduleKey = (path: string) => `tools:${path}`;

/**
 * `toolwright dev`'s reloads: loads the tools modules (fresh each time, module-bundle.ts),
 * watches their files, the config and its folders, and on a change swaps the changed source's
 * entries in the running server's registries (clients stay connected; each registry change is
 * one list_changed to legacy sessions and modern listen streams). A reload that fails to load,
 * compile or validate changes nothing: the last good version keeps serving and the error is
 * printed (file:line:column for syntax errors) and kept in `status` for the console. A
 * TypeScript module's reload is type-checked first by the project's own `tsc` (typecheck.ts),
 * unless `typecheck` is off: a type error is refused as a syntax error is.
 */
export class DevReloader {
  readonly status: ReloadStatus = { reloads: 0 };
  private readonly modules = new Map<string, ModuleState>();
  private server?: ToolServer;
  private loaded?: LoadedConfig;
  private configPath?: string;
  private owned: ConfigOwned = ownedBy(undefined);
  private folders: ConfigSources['folders'] = { resources: [] };
  private watcher?: DevWatcher;
  private readonly queued = new Set<string>();
  private busy?: Promise<void>;
  private typeCheck?: DevTypeCheck;

  constructor(
    private readonly io: CliIo,
    private readonly version: string,
    /** --tools, resolved: loaded after the config's modules, as serve does. */
    private readonly cliModule: string | undefined,
    /** false with --no-typecheck. */
    private readonly typecheck = true,
  ) {}

  /** Settles once no reload is running or queued (tests and the benchmark wait on it). */
  async idle(): Promise<void> {
    while (this.busy) await this.busy;
  }

  /** serve's `planned` hook: what the config put on the server is the config's to replace. */
  readonly planned = (server: ToolServer, loaded: LoadedConfig | undefined, configPath: string | undefined): void => {
    this.server = server;
    this.loaded = loaded;
    this.configPath = configPath;
    if (this.typecheck)
      this.typeCheck = new DevTypeCheck(locateState(process.cwd(), configPath).dir, (warning) => this.io.stderr(`toolwright dev: ${warning}\n`));
    const sources = loaded ? sourcesOf(server, loaded) : undefined;
    this.owned = ownedBy(sources);
    if (sources) this.folders = sources.folders;
  };

  /** serve's `loadTools` hook: the start-up load of a module, a set-up error (exit 1) when it fails. */
  readonly loadTools = async (module: string, server: ToolServer): Promise<Tool[]> => {
    try {
      const { tools, files } = await bundleToolsModule(module, server);
      this.modules.set(resolve(module), { names: tools.map((t) => t.name), files });
      return tools;
    } catch (err) {
      if (err instanceof ModuleLoadError) throw new UsageError(err.message);
      throw err;
    }
  };

  /** serve's `serving` hook: starts watching; returns the stop. */
  readonly serving = (server: ToolServer): (() => void) => {
    this.server = server;
    this.watcher = new DevWatcher(
      (keys) => this.schedule(keys),
      (err) => this.io.stderr(`toolwright dev: cannot watch a file: ${(err as Error).message}\n`),
    );
    this.watchAll();
    const watched = [...this.modules.keys(), ...(this.configPath ? [this.configPath] : [])].map(shown);
    this.io.stderr(`toolwright dev: watching ${watched.join(', ') || 'nothing'}${this.folderList()}; edits apply without a restart\n`);
    this.sayTypeChecks();
    return () => {
      this.watcher?.close();
      this.typeCheck?.close();
    };
  };

  /** Reloads what `keys` name, after any reload already running (one at a time, changes coalesced). */
  schedule(keys: Iterable<string>): Promise<void> {
    for (const key of keys) this.queued.add(key);
    this.busy ??= this.drain().finally(() => (this.busy = undefined));
    return this.busy;
  }

  private async drain(): Promise<void> {
    while (this.queued.size) {
      const keys = new Set(this.queued);
      this.queued.clear();
      await this.apply(keys);
    }
  }

  /** Each changed source reloaded on its own: a broken module does not hold back a prompt edited beside it. */
  private async apply(keys: Set<string>): Promise<void> {
    if (keys.has(CONFIG)) return this.attempt(() => this.reloadConfig());
    for (const key of keys) if (key.startsWith('tools:')) await this.attempt(() => this.reloadModule(key.slice('tools:'.length)));
    const kinds = new Set(FOLDER_KINDS.filter((kind) => keys.has(kind)));
    if (kinds.size && this.loaded) await this.attempt(async () => this.reloadFolders(kinds));
  }

  /** Runs one reload: said on the terminal either way, and kept in `status`. */
  private async attempt(reload: () => Promise<string>): Promise<void> {
    const started = performance.now();
    try {
      const what = await reload();
      this.status.reloads++;
      this.status.lastReloadAt = new Date().toISOString();
      delete this.status.error;
      this.io.stderr(`toolwright dev: reloaded ${what} in ${Math.round(performance.now() - started)} ms\n`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.status.error = { message, at: new Date().toISOString() };
      this.io.stderr(`toolwright dev: reload failed; still serving the last good version:\n${message}\n`);
    }
  }

  /** The config's folders read again (the config itself as it was last loaded). */
  private reloadFolders(kinds: Set<SourceKind>): string {
    this.owned = swapConfigKinds(this.server!, this.owned, reloadConfigSources(this.loaded!, this.version), kinds);
    return `the ${[...kinds].join(', ')} folder${kinds.size > 1 ? 's' : ''}`;
  }

  private async reloadModule(path: string): Promise<string> {
    const previous = this.modules.get(path);
    let loaded: { tools: Tool[]; files: string[] };
    try {
      loaded = await bundleToolsModule(path, this.server!);
      checkTools(loaded.tools);
      await this.typeCheck?.check(path, loaded.files);
    } catch (err) {
      // A file the failed load reached (a new import with the error) is watched too, so fixing it reloads.
      if (err instanceof ModuleLoadError && err.file && previous) this.watcher?.watchFiles(moduleKey(path), [...previous.files, err.file]);
      throw err;
    }
    this.server!.tools.replace(previous?.names ?? [], loaded.tools);
    this.modules.set(path, { names: loaded.tools.map((t) => t.name), files: loaded.files });
    this.watcher?.watchFiles(moduleKey(path), loaded.files);
    return `${shown(path)} (${loaded.tools.length} tool${loaded.tools.length === 1 ? '' : 's'})`;
  }

  /**
   * The config read again: its toolsets and every tools module it names loaded (all or
   * nothing), then swapped in. What needs a restart (server:, middleware:, upstreams:, skills
   * turned on or off) is said, not applied.
   */
  private async reloadConfig(): Promise<string> {
    const loaded = loadConfig(this.configPath!);
    const sources = reloadConfigSources(loaded, this.version);
    const modules = [...new Set([...sources.modules, ...(this.cliModule ? [this.cliModule] : [])])];
    const fresh = new Map<string, { tools: Tool[]; files: string[] }>();
    for (const module of modules) fresh.set(module, await bundleToolsModule(module, this.server!));
    const tools = [...sources.toolsetTools, ...[...fresh.values()].flatMap((m) => m.tools)];
    checkTools(tools);
    for (const [module, { files }] of fresh) await this.typeCheck?.check(module, files);
    const previousNames = [...this.owned.toolNames, ...[...this.modules.values()].flatMap((m) => m.names)];
    this.server!.tools.replace(previousNames, tools);
    this.owned = swapConfigKinds(this.server!, { ...this.owned }, sources, new Set(FOLDER_KINDS));
    this.owned.toolNames = sources.toolsetTools.map((t) => t.name);
    this.warnRestart(loaded, sources);
    this.loaded = loaded;
    this.folders = sources.folders;
    for (const path of this.modules.keys()) if (!fresh.has(path)) this.watcher?.watchFiles(moduleKey(path), []);
    this.modules.clear();
    for (const [module, { tools: list, files }] of fresh) this.modules.set(module, { names: list.map((t) => t.name), files });
    this.watchAll();
    return `${shown(this.configPath!)} (${tools.length} tools)`;
  }

  private warnRestart(loaded: LoadedConfig, sources: ConfigSources): void {
    const sections = restartNeeded(this.loaded?.config ?? {}, loaded.config);
    if (Boolean(sources.skills) !== Boolean(this.server!.skills)) sections.push('skills (turned on or off)');
    if (sections.length)
      this.io.stderr(
        `toolwright dev: ${sections.join(', ')} changed in ${shown(this.configPath!)}: restart toolwright dev to apply ${sections.length > 1 ? 'them' : 'it'}\n`,
      );
  }

  /** Once, at start-up: whether reloads of the TypeScript modules are type-checked, and if not why. */
  private sayTypeChecks(): void {
    const modules = [...this.modules.keys()].filter(isTypeScript);
    if (!this.typeCheck || !modules.length) return;
    const unchecked = modules.filter((module) => !findProjectTsc(module));
    if (unchecked.length)
      this.io.stderr(
        `toolwright dev: types are not checked (${unchecked.map(shown).join(', ')}): no \`typescript\` is installed in the project (npm install --save-dev typescript)\n`,
      );
    if (unchecked.length < modules.length) {
      this.io.stderr("toolwright dev: each reload is type-checked with the project's TypeScript first (--no-typecheck to skip)\n");
      this.typeCheck.warm(modules.filter((module) => !unchecked.includes(module)));
    }
  }

  private watchAll(): void {
    const watcher = this.watcher;
    if (!watcher) return;
    for (const [path, { files }] of this.modules) watcher.watchFiles(moduleKey(path), files);
    if (this.configPath) watcher.watchFiles(CONFIG, [this.configPath]);
    if (this.folders.prompts) watcher.watchTree('prompts', this.folders.prompts);
    for (const folder of this.folders.resources) watcher.watchTree('resources', folder);
    if (this.folders.skills && this.server?.skills) watcher.watchTree('skills', this.folders.skills);
  }

  private folderList(): string {
    const folders = [this.folders.prompts, ...this.folders.resources, this.folders.skills].filter((f): f is string => f !== undefined);
    return folders.length ? ` and the folders ${folders.map(shown).join(', ')}` : '';
  }
}
