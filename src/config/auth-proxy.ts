import { join, resolve } from 'node:path';
import type { AuditSink } from '../audit/record.js';
import { createAuthProxy, type AuthProxy } from '../auth-proxy/facade.js';
import type { AuditHealth } from '../auth-proxy/audit-health.js';
import type { AuthProxyOptions } from '../auth-proxy/options.js';
import { RedisAuthProxyStore } from '../auth-proxy/redis-store.js';
import { SqliteAuthProxyStore } from '../auth-proxy/sqlite-store.js';
import type { AuthProxyStore } from '../auth-proxy/store.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import type { Logger } from '../runtime/logger.js';
import { expandEnv } from './expand-env.js';
import type { AuthProxyConfig, ServerConfig } from './types.js';

/**
 * The facade a config describes, and the resource-server options that accept its tokens. Its
 * state goes to Redis with server.state.redis (every instance must find the same clients and
 * codes), else to the `store` file, else auth-proxy.db in the state folder, else memory.
 * `${VAR}` is expanded in the secrets and ids. Throws an Error naming the key.
 */
export function authProxyOf(
  auth: ResourceServerOptions & { proxy: AuthProxyConfig },
  s: ServerConfig,
  baseDir: string,
  stateDir: string | undefined,
  logger: Logger,
  /** The server's audit trail: the facade's events go there too. */
  audit: { sink?: AuditSink; instance?: string; guard?: AuditHealth } = {},
): { proxy: AuthProxy; auth: ResourceServerOptions } {
  const { proxy: configured, ...base } = auth;
  if (!base.resource)
    throw new Error(
      'server.auth.proxy needs server.auth.resource: the public URL of the MCP endpoint (its origin + /oauth/callback is the redirect URI to register at the provider)',
    );
  if (base.issuer || base.introspection || base.jwksUri)
    throw new Error('server.auth.proxy issues its own tokens: leave out server.auth.issuer, jwksUri and introspection');
  const expanded = (key: 'clientId' | 'clientSecret' | 'encryptionKey') => expandEnv(configured[key], `server.auth.proxy.${key}`);
  const { store: storePath, clientMetadataDocuments, ...rest } = configured;
  const options: AuthProxyOptions = {
    ...rest,
    clientId: expanded('clientId'),
    clientSecret: expanded('clientSecret'),
    encryptionKey: expanded('encryptionKey'),
    scopesSupported: configured.scopesSupported ?? base.scopesSupported,
    ...(clientMetadataDocuments === false ? { clientMetadataDocuments: false } : {}),
    store: storeOf(s, storePath, baseDir, stateDir),
    ...(audit.sink
      ? { audit: audit.sink, ...(audit.instance ? { auditInstance: audit.instance } : {}), ...(audit.guard ? { auditGuard: audit.guard } : {}) }
      : {}),
  };
  try {
    const proxy = createAuthProxy(options, base.resource, logger);
    return { proxy, auth: proxy.resourceServer(base) };
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(message.startsWith('auth.') ? `server.${message}` : `server.auth.proxy: ${message}`);
  }
}

function storeOf(s: ServerConfig, path: string | undefined, baseDir: string, stateDir: string | undefined): AuthProxyStore | undefined {
  if (s.state?.redis && path === undefined) return new RedisAuthProxyStore(expandEnv(s.state.redis, 'server.state.redis'), s.state.keyPrefix);
  const file = path !== undefined ? resolve(baseDir, path) : stateDir !== undefined ? join(stateDir, 'auth-proxy.db') : undefined;
  return file === undefined ? undefined : new SqliteAuthProxyStore(file);
}
