// Preloaded into a process a benchmark measures (`node --expose-gc --import <this file> …`):
// on SIGUSR2 it collects garbage and writes the heap still in use to stderr, so the benchmark
// can tell memory kept (a leak) from garbage not yet collected, which RSS alone cannot.
// V8's last-resort collection first (what a heap snapshot's GC does): it also empties V8's
// caches of compiled code, which a plain gc() leaves on Node 26 (about 3 MB after a hundred
// reloads of `toolwright dev`, bounded, not kept by the program). Node 20's V8 ignores the flavor.
process.on('SIGUSR2', () => {
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  globalThis.gc?.();
  globalThis.gc?.();
  process.stderr.write(`HEAP-AFTER-GC ${process.memoryUsage().heapUsed}\n`);
});
