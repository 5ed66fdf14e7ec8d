import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';

/** Alive means present and not a zombie (an orphan's parent in a container may never reap it). */
export function isAlive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const text = readFileSync(stat, 'utf8');
    const state = text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** SIGKILLs `child` unless it has exited, and resolves once it is gone: only then may a test remove files it writes. */
export async function killAndReap(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
