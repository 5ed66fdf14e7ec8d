import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolServer } from '../../../src/server/server.js';
import { execTools, type ExecToolsetOptions } from '../../../src/toolsets/exec/index.js';
import { isAlive } from '../../helpers/process.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

/** A server with the exec toolset, driven through the real pipeline. Approval is off unless asked for. */
export function execServer(options: ExecToolsetOptions, approval: 'never' | 'destructive' = 'never') {
  const log = memoryLogger();
  const server = new ToolServer({ logger: log.logger, tools: execTools(options), approval });
  const w = wire(server);
  const call = async (args: Record<string, unknown>) => (await w.modern('tools/call', { name: 'execute_command', arguments: args })).result;
  return { ...w, call, server, records: log.records };
}

export async function tempRoot(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'toolwright-exec-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Reads the pids a test script wrote, once it wrote `count` of them. */
export function readPids(file: string, count: number): number[] | undefined {
  if (!existsSync(file)) return undefined;
  const pids = readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
  return pids.length >= count ? pids : undefined;
}

/** Re-exported for the exec tests, which import their helpers from here. */
export { isAlive };
