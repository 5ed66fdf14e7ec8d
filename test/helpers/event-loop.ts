/**
 * Watches the event loop: a 5 ms interval notes the longest time between two
 * of its turns. Work that holds the loop (a synchronous scan, a backtracking
 * regular expression) shows up as one long gap; work that yields keeps the
 * gaps short however long it runs in all.
 *
 * A gap counts only as long as this process was running meanwhile (the
 * smaller of the wall-clock gap and the CPU time the process used in it): on
 * a loaded machine the whole process may wait for a core for a while, which
 * says nothing about the code under test. Holding the loop burns CPU for the
 * whole gap, so it is measured in full.
 */
export function watchEventLoop(intervalMs = 5): { stop(): number } {
  let lastWall = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  const note = () => {
    const wall = performance.now();
    const cpu = cpuMs();
    longest = Math.max(longest, Math.min(wall - lastWall, cpu - lastCpu));
    lastWall = wall;
    lastCpu = cpu;
  };
  const timer = setInterval(note, intervalMs);
  return {
    /** Stops watching; the longest busy gap seen, in milliseconds. */
    stop() {
      clearInterval(timer);
      note();
      return longest;
    },
  };
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
