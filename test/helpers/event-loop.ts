import { existsSync, readFileSync } from 'node:fs';

/**
 * Watches the event loop: a 5 ms interval notes the longest time between two
 * of its turns. Work that holds the loop (a synchronous scan, a backtracking
 * regular expression) shows up as one long gap; work that yields keeps the
 * gaps short however long it runs in all.
 *
 * A gap counts only as long as the loop's thread was running meanwhile (the
 * smaller of the wall-clock gap and the CPU time that thread used in it): on
 * a loaded machine the process may wait for a core for a while, which says
 * nothing about the code under test. Holding the loop burns the loop thread's
 * CPU for the whole gap, so it is measured in full. Where Linux tells the
 * main thread's own CPU time (/proc), other threads' work in that time (libuv's
 * file reads, V8's helpers) is not counted: the process-wide figure let a
 * preempted loop plus busy helper threads read as a held loop (a 262 ms "gap"
 * on CI where the file alone gives 50-70 ms).
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

/** The main thread's stat file (its thread id is the process id), where this system has one. */
const MAIN_THREAD_STAT = `/proc/self/task/${process.pid}/stat`;
const TICK_MS = 10; // Linux reports thread times in USER_HZ ticks, 100 a second
const threadTimes = existsSync(MAIN_THREAD_STAT);

/** CPU time of the loop's thread in ms (10 ms steps), or of the whole process where the system does not say. */
function cpuMs(): number {
  if (threadTimes) {
    const stat = readFileSync(MAIN_THREAD_STAT, 'latin1');
    // Fields after the command name in parentheses (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
