/**
 * The fetch to call, as a plain function. A browser's `fetch` must be called
 * with the window (or nothing) as `this`: kept on an object and called as
 * `this.fetch(…)` it throws "Illegal invocation". Node does not mind, which is
 * why only a browser showed it.
 */
export function plainFetch(given?: typeof fetch): typeof fetch {
  const chosen = given ?? globalThis.fetch;
  return (input, init) => chosen(input, init);
}
