import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ToolServer } from '../../src/server/server.js';
import { memoryLogger } from '../helpers/wire.js';

export const EVERYTHING = resolve('node_modules/.bin/mcp-server-everything');
export const FILESYSTEM = resolve('node_modules/.bin/mcp-server-filesystem');

/** A gateway server that keeps no audit file and logs to memory (what it logged is in `records`). */
export function gatewayServer(options: ConstructorParameters<typeof ToolServer>[0] = {}) {
  const { logger, records } = memoryLogger();
  return { server: new ToolServer({ audit: false, tasks: false, logger, ...options }), records };
}

/** A temp folder with one file in it, for server-filesystem. */
export function filesystemRoot(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tw-gateway-fs-'));
  mkdirSync(join(dir, 'notes'));
  writeFileSync(join(dir, 'notes', 'hello.txt'), 'hello from the filesystem upstream');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
