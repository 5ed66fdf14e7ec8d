import { TAKE_MANY_COMMAND } from './command-names.js';
import type { RedisConnection } from './connection.js';

/**
 * The rate-limit points of every call that asks within one turn of the event loop, taken by
 * one Lua script: one Redis command (one EVALSHA, one write, one reply to parse) per turn
 * instead of one per call. Under load a turn holds several calls (each HTTP connection's
 * request is read in the same poll phase), and per-command costs (ioredis's command and
 * pipeline objects, the socket write, Redis's own script call) were half of a call's CPU.
 *
 * The script counts exactly as one INCR per point would, in the order the points were asked
 * for: a key's first point in the batch is an INCR (then PTTL, PEXPIRE on a new window, as
 * rate-limiter-flexible's script does); its further points are counted in the script and
 * added with one INCRBY at the end (a script runs atomically, and Redis's clock stands still
 * while it runs, so the window and its time left are the same for all of them). Each take's
 * tool point is taken only when its caller's point is within the caller's limit.
 *
 * KEYS: the batch's distinct keys. ARGV[1]: the number of takes n; then per take its caller's
 * key index (1-based), the caller's points (limit), its tool's key index (0: no tool point);
 * then per key the window in ms that a new window gets. Returns per take {caller's count, its
 * ms left, tool's count (0: not taken), its ms left}.
 */
export const TAKE_MANY_LUA = `
local n = tonumber(ARGV[1])
local windows = 1 + 3 * n
local count, ttl, later = {}, {}, {}
local function take(i)
  local c = count[i]
  if c == nil then
    local key = KEYS[i]
    c = redis.call('incr', key)
    local t = -1
    if c > 1 then t = redis.call('pttl', key) end
    if t < 0 then
      t = tonumber(ARGV[windows + i])
      redis.call('pexpire', key, t)
    end
    ttl[i] = t
    later[i] = 0
  else
    c = c + 1
    later[i] = later[i] + 1
  end
  count[i] = c
  return c, ttl[i]
end
local out = {}
for j = 0, n - 1 do
  local a = 2 + 3 * j
  local callerCount, callerTtl = take(tonumber(ARGV[a]))
  local toolCount, toolTtl = 0, 0
  local tool = tonumber(ARGV[a + 2])
  if tool > 0 and callerCount <= tonumber(ARGV[a + 1]) then toolCount, toolTtl = take(tool) end
  out[#out + 1] = callerCount
  out[#out + 1] = callerTtl
  out[#out + 1] = toolCount
  out[#out + 1] = toolTtl
end
for i, extra in pairs(later) do
  if extra > 0 then redis.call('incrby', KEYS[i], extra) end
end
return out
`;

/** One call's points: the caller's key, its limit and window; the tool's key and window, if any. */
export interface PointsRequest {
  callerKey: string;
  callerPoints: number;
  callerMs: number;
  toolKey?: string | undefined;
  toolMs?: number | undefined;
}

/** What Redis counted for a request: the caller's count and ms left; the tool's (count 0: not taken). */
export type Counts = [callerCount: number, callerTtl: number, toolCount: number, toolTtl: number];

interface Pending {
  request: PointsRequest;
  resolve(counts: Counts): void;
  reject(err: unknown): void;
}

type TakeMany = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<number[]>;

/** At most this many takes go in one script run, so that one run stays short for Redis (it serves nothing else meanwhile). */
const MAX_TAKES_PER_COMMAND = 256;

/**
 * Gathers the takes asked for in one event-loop turn and sends them as one command when the
 * turn's I/O is done (setImmediate: after every connection's input read in this turn has
 * been handled). A failed command fails each of its takes with the command's error.
 */
export class TakeBatcher {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly takeMany: TakeMany;

  constructor(private readonly redis: RedisConnection) {
    const client = redis.client as unknown as Record<string, unknown> & { defineCommand(name: string, spec: { lua: string }): void };
    if (!client[TAKE_MANY_COMMAND]) client.defineCommand(TAKE_MANY_COMMAND, { lua: TAKE_MANY_LUA });
    this.takeMany = client[TAKE_MANY_COMMAND] as TakeMany;
  }

  take(request: PointsRequest): Promise<Counts> {
    return new Promise<Counts>((resolve, reject) => {
      this.pending.push({ request, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const all = this.pending;
    this.pending = [];
    for (let start = 0; start < all.length; start += MAX_TAKES_PER_COMMAND) this.send(all.slice(start, start + MAX_TAKES_PER_COMMAND));
  };

  private send(batch: Pending[]): void {
    const keyIndex = new Map<string, number>();
    const keys: string[] = [];
    const windows: number[] = [];
    const indexOf = (key: string, ms: number): number => {
      let index = keyIndex.get(key);
      if (index === undefined) {
        keys.push(key);
        windows.push(ms);
        index = keys.length;
        keyIndex.set(key, index);
      }
      return index;
    };
    const takes: number[] = [batch.length];
    for (const { request } of batch) {
      takes.push(indexOf(request.callerKey, request.callerMs), request.callerPoints);
      takes.push(request.toolKey === undefined ? 0 : indexOf(request.toolKey, request.toolMs!));
    }
    this.takeMany.call(this.redis.client, keys.length, ...keys, ...takes, ...windows).then(
      (reply) => {
        for (let i = 0; i < batch.length; i++) {
          const at = 4 * i;
          batch[i]!.resolve([reply[at]!, reply[at + 1]!, reply[at + 2]!, reply[at + 3]!]);
        }
      },
      (err: unknown) => {
        for (const pending of batch) pending.reject(err);
      },
    );
  }
}
