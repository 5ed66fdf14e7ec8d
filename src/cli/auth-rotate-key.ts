import { authProxyOf } from '../config/auth-proxy.js';
import { ConfigError } from '../config/validate.js';
import { findConfig, loadConfig } from '../config/load.js';
import { locateState } from '../config/state-dir.js';
import type { AuthProxyConfig } from '../config/types.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import { createLogger } from '../runtime/logger.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';

/**
 * `toolwright auth rotate-key`'s work (auth.ts defines the command): makes a new signing key
 * the facade's (server.auth.proxy) in the store the config's server uses (its Redis, its store
 * file, or auth-proxy.db in its state folder), as `proxy.rotateSigningKey()` does. Servers
 * running on that store sign with it from their next token on; the previous key stays published
 * for an access token's lifetime. Needs the same environment as the server (`${VAR}`s, above
 * all the encryptionKey the keys are sealed with).
 */
export async function rotateKey(options: { config?: string }, io: CliIo, cwd: string = process.cwd()): Promise<number> {
  const file = findConfig(cwd, options.config);
  if (!file) throw new UsageError("no config found: name the server's config with --config (its server.auth.proxy says where the keys are)");
  const loaded = configOf(file);
  const server = loaded.config.server;
  const auth = server?.auth as (ResourceServerOptions & { proxy?: AuthProxyConfig }) | undefined;
  if (!server || !auth?.proxy) throw new UsageError(`${loaded.file} has no server.auth.proxy: there is no facade signing key to rotate`);
  let built: ReturnType<typeof authProxyOf>;
  try {
    // The state folder the server started with this config uses (its auth-proxy.db), unless the config names a store or Redis.
    built = authProxyOf(auth as ResourceServerOptions & { proxy: AuthProxyConfig }, server, loaded.baseDir, locateState(cwd, file).dir, createLogger('warn'));
  } catch (err) {
    throw new UsageError(err instanceof ConfigError ? err.message : `${loaded.file}: ${(err as Error).message}`);
  }
  try {
    const kid = await built.proxy.rotateSigningKey();
    io.stdout(`new signing key: ${kid}\n`);
    io.stderr(
      "toolwright: servers using this store sign with it from their next token on; the previous key stays published for an access token's lifetime plus 5 minutes\n",
    );
  } finally {
    await built.proxy.close();
  }
  return ExitCode.ok;
}

function configOf(file: string): ReturnType<typeof loadConfig> {
  try {
    return loadConfig(file);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}
