import type { Redis, RedisOptions } from 'ioredis';
import { requireOptional } from '../../runtime/optional-package.js';
import { TAKE_MANY_COMMAND } from './command-names.js';

/**
 * The one place that loads ioredis, an optional peer dependency (missing, it is a
 * MissingPackageError naming `npm install ioredis`, when the server is built). It is loaded only
 * when a server is given `state.redis` (nothing else in toolwright imports it), with `require`
 * rather than `import()`: rate-limiter-flexible's RateLimiterRedis wants its
 * client when it is built, and a ToolServer is built synchronously.
 *
 * One client per (URL, key prefix) in the process, shared by every store that
 * asks for it (limits, stored results, the event bus, sessions, tasks) and
 * counted: the last `release()` closes it.
 */

/** Thrown (or given as a refusal's cause) when the shared state in Redis cannot be reached: never a limit decision nor a missing entry. */
export class StateUnavailableError extends Error {
  /** What went wrong, for the server's log (where Redis is, the driver's error); the message, shown to clients, names neither. */
  readonly detail: string;
  constructor(detail: string) {
    super('shared state is unavailable (Redis cannot be reached); try again shortly');
    this.name = 'StateUnavailableError';
    this.detail = `Redis ${detail}`;
  }
}

export interface RedisConnectionOptions {
  /** Put before every key this connection's stores write (default `toolwright:`), so several deployments can share one Redis. */
  keyPrefix?: string;
  /** How long the first connection may take before commands fail (default 2,000 ms). */
  connectTimeoutMs?: number;
  /** How long one command may take before it fails (default 2,000 ms): a Redis that hangs fails the call instead of holding it. */
  commandTimeoutMs?: number;
}

/**
 * A shared connection, as the Redis stores take it. `client` and `run` name ioredis's types, so
 * they are left out of the published declarations (marked internal): ioredis is an optional peer
 * dependency, and a project without it must still compile toolwright's types with skipLibCheck off.
 */
export interface RedisConnection {
  /** @internal The ioredis client (connecting, or reconnecting on its own after an outage). Use `run` to get failures as StateUnavailableError. */
  readonly client: Redis;
  /** The key prefix, ending in ':' (default `toolwright:`). */
  readonly keyPrefix: string;
  /** `keyPrefix` + `name`. */
  key(name: string): string;
  /** True once connected and not since disconnected. */
  readonly ready: boolean;
  /**
   * Runs `command` on the client. When Redis is down, fails at once (after the
   * first connection: within `connectTimeoutMs`) with StateUnavailableError;
   * a command that fails because the connection broke or timed out does too.
   * A reply error from Redis itself (a bad command) is passed on as it is.
   * @internal
   */
  run<T>(command: (client: Redis) => Promise<T>): Promise<T>;
  /** Drops this user's hold; the last one closes the client. */
  release(): Promise<void>;
}

/** A URL fit to show: scheme, host and port; never the password (nor the user name). */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host || 'localhost'}`;
  } catch {
    return 'redis://(unparsable URL)';
  }
}

/** Checks a `state.redis` value: a redis:// or rediss:// URL. Throws a TypeError saying what is wrong (without the URL's password). */
export function checkRedisUrl(url: unknown): string {
  if (typeof url !== 'string' || !/^rediss?:\/\//i.test(url)) throw new TypeError('state.redis must be a redis:// or rediss:// URL');
  try {
    new URL(url);
  } catch {
    throw new TypeError(`state.redis is not a valid URL (${describeRedisUrl(url)})`);
  }
  return url;
}

interface Shared {
  connection: SharedConnection;
  users: number;
}

const shared = new Map<string, Shared>();

/**
 * The process's connection to the Redis at `url` with `options.keyPrefix`:
 * made on first use, shared after. Each call takes a hold; `release()` it
 * when done.
 */
export function redisConnection(url: string, options: RedisConnectionOptions = {}): RedisConnection {
  checkRedisUrl(url);
  const keyPrefix = normalPrefix(options.keyPrefix);
  const id = `${keyPrefix}\u0000${url}`;
  let entry = shared.get(id);
  if (!entry) {
    entry = { connection: new SharedConnection(url, keyPrefix, options, () => shared.delete(id)), users: 0 };
    shared.set(id, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  const connection = held.connection;
  return {
    client: connection.client,
    keyPrefix,
    key: (name) => keyPrefix + name,
    get ready() {
      return connection.ready;
    },
    run: (command) => connection.run(command),
    release: async () => {
      if (released) return;
      released = true;
      if (--held.users === 0) await connection.close();
    },
  };
}

function normalPrefix(prefix: string | undefined): string {
  if (prefix === undefined) return 'toolwright:';
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9_.:{}-]{0,64}$/.test(prefix)) {
    throw new TypeError('state.keyPrefix must be at most 64 letters, digits or _ . : { } -');
  }
  return prefix === '' || prefix.endsWith(':') ? prefix : `${prefix}:`;
}

type IoRedis = typeof import('ioredis');

class SharedConnection {
  readonly client: Redis;
  ready = false;
  /** Once connected, a later outage fails commands at once instead of waiting for a connection. */
  private connectedOnce = false;
  private lastError = 'is not connected';
  private readonly connectTimeoutMs: number;
  private readonly where: string;

  constructor(
    url: string,
    readonly keyPrefix: string,
    options: RedisConnectionOptions,
    private readonly forget: () => void,
  ) {
    const mod = requireOptional<IoRedis>('ioredis', 'state.redis');
    this.where = describeRedisUrl(url);
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    const settings: RedisOptions = {
      connectTimeout: this.connectTimeoutMs,
      commandTimeout: options.commandTimeoutMs ?? 2_000,
      // Fail closed at once while Redis is away: no queue of calls replayed later.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A command whose connection broke is failed, never sent again: a counted point or a
      // stored result is never applied twice, and its call has already been answered.
      autoResendUnfulfilledCommands: false,
      // Reconnect on its own, for ever, backing off to one try every 2 s.
      retryStrategy: (times) => Math.min(100 * times, 2_000),
      lazyConnect: false,
      // Commands issued in the same tick (calls arriving together) go out in one write.
      enableAutoPipelining: true,
      // The rate-limit script already carries a whole turn's calls (take-batch.ts): a pipeline
      // of one command around it would only add its objects and a tick.
      autoPipeliningIgnoredCommands: [TAKE_MANY_COMMAND],
      connectionName: 'toolwright',
    };
    this.client = new mod.Redis(url, settings);
    this.client.on('ready', () => {
      this.ready = true;
      this.connectedOnce = true;
    });
    this.client.on('close', () => {
      this.ready = false;
    });
    // Without a listener an 'error' event would end the process; the next command reports its own.
    this.client.on('error', (err: Error) => {
      this.lastError = `at ${this.where} cannot be reached (${oneLine(err)})`;
    });
    // Idle connections must not keep a process alive that has nothing else to do.
    this.client.on('connect', () => (this.client as unknown as { stream?: { unref?: () => void } }).stream?.unref?.());
  }

  async run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    if (!this.ready) await this.waitForFirstConnection();
    try {
      return await command(this.client);
    } catch (err) {
      if (isReplyError(err)) throw err;
      throw new StateUnavailableError(`at ${this.where} did not answer (${oneLine(err)})`);
    }
  }

  private async waitForFirstConnection(): Promise<void> {
    if (this.connectedOnce || this.client.status === 'end') throw new StateUnavailableError(this.lastError);
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), this.connectTimeoutMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('end', onEnd);
        resolve(ok);
      };
      const onReady = () => done(true);
      // Closed (its last user released it) before it ever connected: no wait, no timer holding the process.
      const onEnd = () => done(false);
      this.client.on('ready', onReady);
      this.client.on('end', onEnd);
    });
    if (!ready) throw new StateUnavailableError(this.lastError);
  }

  async close(): Promise<void> {
    this.forget();
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

/** An error Redis itself answered (a bad command or argument): not an outage. */
function isReplyError(err: unknown): boolean {
  return err instanceof Error && err.name === 'ReplyError';
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);
}
