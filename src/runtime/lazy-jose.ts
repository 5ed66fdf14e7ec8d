type Jose = typeof import('jose');
let loaded: Promise<Jose> | undefined;

/**
 * jose (some fifty modules), loaded by its first use: every HTTP server and
 * every client imports the code that verifies or signs JWTs, and most never
 * do (loading it was ~15 ms of an HTTP server's ~150 ms to its first answer).
 * Everything that needs it is asynchronous anyway.
 */
export function loadJose(): Promise<Jose> {
  return (loaded ??= import('jose'));
}
