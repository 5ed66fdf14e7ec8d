import { checkRedisUrl } from '../state/redis/connection.js';
import type { StateOptions } from '../state/index.js';
import { expandEnv } from './expand-env.js';
import type { ServerConfig } from './types.js';

/** `server.state` as ToolServer options, `${NAME}` expanded. Throws an Error naming the key (never the URL's password) when it is unusable. */
export function stateOf(state: ServerConfig['state'], env: NodeJS.ProcessEnv = process.env): StateOptions | undefined {
  if (state === undefined) return undefined;
  const redis = expandEnv(state.redis, 'server.state.redis', env);
  try {
    checkRedisUrl(redis);
  } catch {
    throw new Error('server.state.redis must be a redis:// or rediss:// URL');
  }
  return { redis, keyPrefix: state.keyPrefix, onFailure: state.onFailure };
}

/** `server.requestStateSecret`, `${NAME}` expanded. */
export function requestStateSecretOf(secret: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return secret === undefined ? undefined : expandEnv(secret, 'server.requestStateSecret', env);
}
