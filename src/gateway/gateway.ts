import { join } from 'node:path';
import { expandVariables } from '../client/connect/expand-variables.js';
import type { ToolServer } from '../server/server.js';
import { mount, type MountContext, type MountHandle } from './mount.js';
import type { MountOptions, Upstream, UpstreamHealth } from './types.js';
import { serveUpstreamHealth, type HealthResourceOptions } from './health.js';

/** An upstream as a config file or servers file gives it: where it is and how it is mounted, in one object. */
export type UpstreamEntry = Upstream & MountOptions & { [key: string]: unknown };

const MOUNT_KEYS = new Set<string>([
  'prefix',
  'include',
  'exclude',
  'includeTags',
  'excludeTags',
  'tools',
  'scopes',
  'approval',
  'timeoutMs',
  'maxConcurrency',
  'connectTimeoutMs',
  'prompts',
  'resources',
  'forwardAuthorization',
  'roots',
  'cacheLists',
  'health',
]);
/** An OpenAPI upstream reads these itself (its include/exclude are by operation, its timeout per request). */
const OPENAPI_OWN = new Set(['include', 'exclude', 'timeoutMs', 'headers', 'credentials']);

/**
 * Several upstreams mounted on one server (a config's `upstreams:`, `serve --upstreams`): their
 * health, waiting a bounded time for their first listings at start-up, and closing them all.
 */
export class Gateway {
  readonly mounts: MountHandle[] = [];
  private stopHealth?: () => void;

  constructor(
    private readonly server: ToolServer,
    private readonly context: MountContext = {},
  ) {}

  /** Mounts one entry (`${VAR}` in its env and headers expanded from the context's environment; `context` overrides the gateway's, e.g. the file it came from as cwd). */
  add(name: string, entry: UpstreamEntry, context: MountContext = {}): MountHandle {
    const { upstream, options } = splitEntry(entry, context.env ?? this.context.env ?? process.env, name);
    const { cacheLists, ...mountOptions } = options as MountOptions & { cacheLists?: boolean };
    const cacheDir = context.cacheDir ?? this.context.cacheDir;
    // A name is [A-Za-z0-9_.-] (checked by mount): a plain file name in the folder.
    if (cacheLists === true && cacheDir !== undefined) mountOptions.listCache ??= join(cacheDir, `${name}.json`);
    const handle = mount(this.server, name, upstream, mountOptions, { ...this.context, ...context });
    this.mounts.push(handle);
    return handle;
  }

  /**
   * Waits, up to `waitMs`, until every upstream has either listed its tools or failed its first
   * attempt, so that a server starts with the tools of those that answer and a clash between them
   * is found before it serves; one that is down or slower does not hold it past that (its tools
   * appear when it connects, with list_changed). Rejects on a name clash (naming both sources).
   * Resolves with the names of those not yet listed.
   */
  async started(waitMs: number): Promise<string[]> {
    const pending = new Set(this.mounts.map((m) => m.name));
    for (const m of this.mounts) m.ready.then(() => pending.delete(m.name)).catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    try {
      await Promise.race([Promise.all(this.mounts.map((m) => m.settled)), timeout]);
    } finally {
      clearTimeout(timer);
    }
    // A clash found meanwhile is the start-up's failure.
    for (const m of this.mounts) await Promise.race([m.ready, Promise.resolve()]);
    return [...pending];
  }

  health(): UpstreamHealth[] {
    return this.mounts.map((m) => m.health());
  }

  /**
   * Serves `health()` as the resource `toolwright doctor` and the console read (health.ts), whatever
   * the mounts serve themselves (one resource, each upstream listed once); `close()` takes it away.
   */
  serveHealth(options: HealthResourceOptions = {}): void {
    this.stopHealth ??= serveUpstreamHealth(this.server, () => this.health(), options);
  }

  /** Stops every upstream (stdio ones with their whole process group). */
  async close(): Promise<void> {
    this.stopHealth?.();
    this.stopHealth = undefined;
    await Promise.all(this.mounts.map((m) => m.close()));
  }
}

/** Where an upstream is, apart from how it is mounted; `${VAR}` expanded in what carries secrets. */
export function splitEntry(entry: UpstreamEntry, env: NodeJS.ProcessEnv, name: string): { upstream: Upstream; options: MountOptions } {
  const openapi = entry.openapi !== undefined;
  const upstream: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (MOUNT_KEYS.has(key) && !(openapi && OPENAPI_OWN.has(key))) options[key] = value;
    else upstream[key] = value;
  }
  // An OpenAPI upstream expands its own `${VAR}`s (openApiTools, from the same environment):
  // expanding here too would expand a secret that itself contains `${…}` twice.
  if (!openapi) {
    for (const key of ['env', 'headers'] as const) {
      const map = upstream[key] as Record<string, string> | undefined;
      if (map) upstream[key] = expandMap(map, env, `upstreams.${name}.${key}`);
    }
    if (typeof upstream.url === 'string') upstream.url = expand(upstream.url, env, `upstreams.${name}.url`);
  }
  if (entry.forwardAuthorization !== undefined) upstream.forwardAuthorization = entry.forwardAuthorization;
  return { upstream: upstream as unknown as Upstream, options: options as MountOptions };
}

function expandMap(map: Record<string, string>, env: NodeJS.ProcessEnv, key: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) out[k] = expand(v, env, `${key}.${k}`);
  return out;
}

/** `${VAR}` expanded; an unset one is an error naming the key and the variable, never a value. */
function expand(value: string, env: NodeJS.ProcessEnv, key: string): string {
  try {
    return expandVariables(value, env);
  } catch (err) {
    throw new Error(`${key}: ${(err as Error).message}`);
  }
}
