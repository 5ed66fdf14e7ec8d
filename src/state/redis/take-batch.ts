import type { RateLimitPairDecide } from '../../policy/rate-limit-store.js';
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
 * What goes over the wire is kept small, because ioredis spends time on every argument and
 * redis-parser on every reply element (a batch's cost in this process, which is what limits
 * an instance's calls per second):
 * - KEYS: the batch's distinct keys. ARGV[2i - 1], ARGV[2i]: key i's window in ms (what a
 *   new window gets) and its points (its limit).
 * - ARGV[2k + 1], k the number of keys: the takes, in order, as runs of equal takes:
 *   "caller tool count caller tool count …", where caller and tool are key indexes (1-based;
 *   tool 0: no tool point) and count is how many takes in a row ask for that pair.
 * - The reply: one integer per take. 0: both points within their limits; > 0: the caller is
 *   over its limit, and that many ms are left of its window; < 0: the tool is over its limit,
 *   with minus that many ms left (at least 1 ms either way, so 0 only ever means allowed).
 */
export const TAKE_MANY_LUA = `
local k = #KEYS
local count, ttl, later, limit = {}, {}, {}, {}
local function take(i)
  local c = count[i]
  if c == nil then
    limit[i] = tonumber(ARGV[2 * i])
    local key = KEYS[i]
    c = redis.call('incr', key)
    local t = -1
    if c > 1 then t = redis.call('pttl', key) end
    if t < 0 then
      t = tonumber(ARGV[2 * i - 1])
      redis.call('pexpire', key, t)
    end
    if t < 1 then t = 1 end
    ttl[i] = t
    later[i] = 0
  else
    c = c + 1
    later[i] = later[i] + 1
  end
  count[i] = c
  return c > limit[i]
end
local out = {}
for caller, tool, times in string.gmatch(ARGV[2 * k + 1], '(%d+) (%d+) (%d+)') do
  caller, tool = tonumber(caller), tonumber(tool)
  for _ = 1, tonumber(times) do
    local answer = 0
    if take(caller) then
      answer = ttl[caller]
    elseif tool > 0 and take(tool) then
      answer = -ttl[tool]
    end
    out[#out + 1] = answer
  end
end
for i, extra in pairs(later) do
  if extra > 0 then redis.call('incrby', KEYS[i], extra) end
end
return out
`;

/** One call's points: the caller's key, its limit and window; the tool's key, limit and window, if any. */
export interface PointsRequest {
  callerKey: string;
  callerPoints: number;
  callerMs: number;
  toolKey?: string | undefined;
  toolPoints?: number | undefined;
  toolMs?: number | undefined;
}

interface Pending<T = unknown> {
  request: PointsRequest;
  resolve(decision: T | Promise<T>): void;
  /** The call's decision from the ms left of each window over its limit (undefined: within it). */
  decide: RateLimitPairDecide<T>;
  /** What the take becomes when the command fails (the store's failure policy). */
  onFailure(err: unknown): Promise<T>;
}

type TakeMany = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<number[]>;

/** At most this many takes go in one script run, so that one run stays short for Redis (it serves nothing else meanwhile). */
const MAX_TAKES_PER_COMMAND = 256;

/**
 * Gathers the takes asked for in one event-loop turn and sends them as one command when the
 * turn's I/O is done (setImmediate: after every connection's input read in this turn has
 * been handled). A failed command hands each of its takes to that take's `onFailure`.
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

  /** The call's decision, settled with the rest of its turn's: one promise per call, no chain. */
  take<T>(request: PointsRequest, decide: RateLimitPairDecide<T>, onFailure: Pending<T>['onFailure']): Promise<T> {
    return new Promise<T>((resolve) => {
      this.pending.push({ request, resolve, decide, onFailure } as Pending);
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
    const limits: number[] = [];
    const indexOf = (key: string, ms: number, points: number): number => {
      let index = keyIndex.get(key);
      if (index === undefined) {
        keys.push(key);
        limits.push(ms, points);
        index = keys.length;
        keyIndex.set(key, index);
      }
      return index;
    };
    let runs = '';
    let caller = 0;
    let tool = -1;
    let times = 0;
    for (const { request } of batch) {
      const c = indexOf(request.callerKey, request.callerMs, request.callerPoints);
      const t = request.toolKey === undefined ? 0 : indexOf(request.toolKey, request.toolMs!, request.toolPoints!);
      if (c === caller && t === tool) {
        times++;
        continue;
      }
      if (times > 0) runs += `${caller} ${tool} ${times} `;
      caller = c;
      tool = t;
      times = 1;
    }
    runs += `${caller} ${tool} ${times}`;
    this.takeMany.call(this.redis.client, keys.length, ...keys, ...limits, runs).then(
      (reply) => {
        for (let i = 0; i < batch.length; i++) {
          const answer = reply[i]!;
          const { resolve, decide } = batch[i]!;
          resolve(answer === 0 ? decide(undefined, undefined) : answer > 0 ? decide(answer, undefined) : decide(undefined, -answer));
        }
      },
      (err: unknown) => {
        for (const pending of batch) pending.resolve(pending.onFailure(err));
      },
    );
  }
}
