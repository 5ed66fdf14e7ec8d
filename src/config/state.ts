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

/**
 * `server.state` and `server.requestStateSecret` together. Shared state means several instances,
 * and the client's retry of an input-required round may land on any of them: without one secret
 * for all, each would sign with a random key of its own and refuse the others' rounds, quietly
 * (issue 30). So shared state without a secret is a config error.
 */
export function sharedStateOf(
  state: ServerConfig['state'],
  secret: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { state?: StateOptions; requestStateSecret?: string } {
  const shared = stateOf(state, env);
  const requestStateSecret = requestStateSecretOf(secret, env);
  if (shared !== undefined && !requestStateSecret) throw new Error(MISSING_SHARED_SECRET);
  return { state: shared, requestStateSecret };
}

const MISSING_SHARED_SECRET =
  'server.requestStateSecret is required with server.state: every instance must sign input-required rounds with the same key, ' +
  'or a retry that reaches another instance is refused. Give it from the environment: "requestStateSecret": "${TOOLWRIGHT_REQUEST_STATE_SECRET}" (docs/scale-out.md)';
