import { dirname, join, resolve } from 'node:path';
import { readServers } from '../client/connect/servers-file.js';
import type { ServerPlan } from '../config/build.js';
import type { Gateway } from '../gateway/gateway.js';
import { UsageError, type CliIo } from './errors.js';

/** At most how long start-up waits for the upstreams' first listings (or first failures) before serving without the slow ones. */
const UPSTREAM_START_WAIT_MS = 10_000;

/**
 * Mounts the config's `upstreams:` and a servers file's servers (`--upstreams`), loading the
 * gateway only when there are any (a server without upstreams never loads it). Then waits until
 * each has listed its tools or failed once (bounded), so a clash between them stops start-up,
 * naming both; a slower one does not hold the server (its tools appear when it connects).
 * Returns the gateway to close at shutdown.
 */
export async function startUpstreams(plan: ServerPlan, serversFile: string | undefined, io: CliIo, stateDir?: string): Promise<Gateway | undefined> {
  if (!plan.upstreams && serversFile === undefined) return undefined;
  const { Gateway, GatewayCollisionError } = await import('../gateway/index.js');
  // An entry with `cacheLists: true` keeps its lists in the state folder (served until it answers after a restart).
  const gateway = new Gateway(plan.server, {
    cwd: plan.upstreams?.baseDir ?? process.cwd(),
    ...(stateDir ? { cacheDir: join(stateDir, 'upstream-lists') } : {}),
  });
  try {
    for (const [name, entry] of Object.entries(plan.upstreams?.entries ?? {})) {
      add(gateway, name, entry, `${plan.upstreams!.file}: upstreams.${name}`, plan.upstreams!.baseDir);
    }
    if (serversFile !== undefined) {
      for (const [name, server] of readServers(serversFile)) {
        const entry =
          server.kind === 'stdio'
            ? { command: server.command, args: server.args, env: server.env, cwd: server.cwd }
            : { url: server.url, headers: server.headers };
        add(gateway, name, entry, `${serversFile}: ${JSON.stringify(name)}`, dirname(resolve(serversFile)));
      }
    }
    // What `toolwright doctor` and the console's Upstreams screen read of a running gateway.
    gateway.serveHealth();
    const pending = await gateway.started(UPSTREAM_START_WAIT_MS);
    if (pending.length)
      io.stderr(`toolwright: still connecting to upstream(s) ${pending.map((n) => JSON.stringify(n)).join(', ')}: their tools appear when they answer\n`);
    return gateway;
  } catch (err) {
    await gateway.close();
    if (err instanceof GatewayCollisionError) throw new UsageError(`upstream names clash: ${err.message}; give one of them another prefix`);
    throw err;
  }
}

/** One upstream mounted; a bad entry is a usage error naming where it is. Relative paths are its file's. */
function add(gateway: Gateway, name: string, entry: Parameters<Gateway['add']>[1], where: string, baseDir: string): void {
  try {
    gateway.add(name, entry, { cwd: baseDir });
  } catch (err) {
    throw new UsageError(`${where}: ${(err as Error).message}`);
  }
}
