/**
 * The pre-serialized fast path of a result object. Results that never change
 * between requests (list pages, `server/discover`) are serialized once; the
 * handler returns the result object, and the transport edge writes the JSON
 * text kept for it here instead of serializing the object again.
 *
 * A WeakMap rather than a member: a copy of the object (`{ ...result }`, what
 * a middleware that changes the result makes) carries no stale text, so it is
 * serialized from its own members. The objects registered are frozen, so
 * they cannot be changed in place behind the text's back.
 */
const texts = new WeakMap<object, string>();

/** `result`, deep-frozen, with `json` as its serialization for the edge to write. */
export function withJson<T extends object>(result: T, json: string): T {
  texts.set(deepFreeze(result), json);
  return result;
}

/** The result object of `json`, whose serialization is `json` itself. */
export function parsedWithJson(json: string): Record<string, unknown> {
  return withJson(JSON.parse(json) as Record<string, unknown>, json);
}

/** The JSON text registered for `result` (by withJson), if any. */
export function jsonOf(result: object): string | undefined {
  return texts.get(result);
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const member of Object.values(value as object)) deepFreeze(member);
  return value;
}
