import { FixedWindows } from './fixed-windows.js';
import { type CreateLimiter, storesFrom } from './flexible-store.js';
import type { RateLimitRule, RateLimitStore, RateLimitWindow } from './rate-limit-store.js';

/** Makes a RateLimiter's stores: one per rule, and the per-caller pair. */
export interface StoreMaker {
  (rule: RateLimitRule, name: string): RateLimitStore;
  /** The per-caller stores: authenticated callers (keyed by their key), and the anonymous bucket. */
  perCaller(rule: RateLimitRule): [callers: RateLimitStore, anonymous: RateLimitStore];
}

/** In process (fixed windows) without `createLimiter`; else what it makes, one store per rule. */
export function storeMaker(createLimiter: CreateLimiter | undefined): StoreMaker {
  if (!createLimiter) {
    const inProcess = (rule: RateLimitRule): RateLimitStore => new FixedWindows(rule.points, rule.durationSeconds * 1000);
    // Two maps: the caller's key is the key as it comes, no `p:` prefix concatenated (and hashed afresh) per call.
    return Object.assign(inProcess, { perCaller: (rule: RateLimitRule): [RateLimitStore, RateLimitStore] => [inProcess(rule), inProcess(rule)] });
  }
  const create = storesFrom(createLimiter);
  return Object.assign((rule: RateLimitRule, name: string) => create(rule, name), {
    perCaller: (rule: RateLimitRule): [RateLimitStore, RateLimitStore] => {
      // One store, named 'principal' as always: authenticated callers under `p:<key>`, apart from the
      // anonymous bucket (`anonymous`) whatever their name, so a shared store's keys stay as they were.
      const store = create(rule, 'principal');
      return [callerView(store, false), callerView(store, true)];
    },
  });
}

/** One side of the per-caller store: a caller's key `k` is `p:k` there, and the anonymous bucket (key '') is `anonymous`. */
function callerView(store: RateLimitStore, anonymous: boolean): RateLimitStore {
  const keyOf = anonymous ? () => 'anonymous' : (key: string) => `p:${key}`;
  const keyBack = anonymous ? (key: string) => (key === 'anonymous' ? '' : undefined) : (key: string) => (key.startsWith('p:') ? key.slice(2) : undefined);
  const view: RateLimitStore = {
    take: (key) => store.take(keyOf(key)),
    peek: (key) => store.peek(keyOf(key)),
  };
  if (store.refund) view.refund = (key, outcome) => store.refund!(keyOf(key), outcome);
  if (store.takePair) view.takePair = (key, tool, decide) => store.takePair!(keyOf(key), tool, decide);
  if (store.live) {
    const live = store.live.bind(store);
    view.live = function* (): Generator<RateLimitWindow & { key: string }> {
      for (const window of live()) {
        const key = keyBack(window.key);
        if (key !== undefined) yield { ...window, key };
      }
    };
  }
  return view;
}
