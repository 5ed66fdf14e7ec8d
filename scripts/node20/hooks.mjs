// Module resolution hook: only the conformance suite's `fs` is redirected.
const shim = new URL('./fs-with-glob.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
