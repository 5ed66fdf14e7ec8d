// Preloaded into a process a benchmark measures (`node --expose-gc --import <this file> …`):
// on SIGUSR2 it collects garbage and writes the heap still in use to stderr, so the benchmark
// can tell memory kept (a leak) from garbage not yet collected, which RSS alone cannot.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  process.stderr.write(`HEAP-AFTER-GC ${process.memoryUsage().heapUsed}\n`);
});
