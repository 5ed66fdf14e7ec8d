import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { auditEnv, tempDir } from '../helpers/temp.js';

// Issue 33: start-up loads what the configured server uses. With no OpenTelemetry provider
// registered, tracing does nothing, so @opentelemetry/api (~50 files, ~70 ms of CPU) stays
// unloaded; PostgreSQL and Redis are loaded only by a configuration that names them; node:crypto
// and TLS (~8 ms) wait for the first thing that needs them (a task, a token, an https fetch).
// Checked in a real process from the modules it loaded (test/helpers/record-loads.mjs), on the
// built dist/.
const root = fileURLToPath(new URL('../..', import.meta.url));
const recorder = join(root, 'test', 'helpers', 'record-loads.mjs');
const UNUSED_BY_DEFAULT = [
  '@opentelemetry/',
  '/node_modules/pg/',
  '/node_modules/pg-',
  '/node_modules/ioredis/',
  '/node_modules/rate-limiter-flexible/',
  'builtin:crypto',
  'builtin:tls',
  'builtin:https',
];

/** A tools/list of the 2026-07-28 era: the server has registered and listed its tools before it exits. */
const LIST_TOOLS = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } })}\n`;

function loadedBy(args: string[], cwd: string, input = ''): string[] {
  const log = join(cwd, 'loaded.txt');
  const run = spawnSync(process.execPath, ['--import', recorder, ...args], {
    cwd,
    env: { ...process.env, ...auditEnv(), TOOLWRIGHT_TEST_LOADED: log, OTEL_SDK_DISABLED: 'true' },
    input,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
  if (input) expect(run.stdout).toContain('"tools":[');
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const unusedIn = (loaded: string[]) => loaded.filter((file) => UNUSED_BY_DEFAULT.some((part) => file.includes(part)));

/**
 * Whether this Node loads TLS and node:crypto for a mere `import 'node:http'` from an ES module:
 * Node 26 does (the import reads node:http's lazy getters, whose undici loads http2 and TLS), Node
 * 20 does not. The CLI imports node:http, so there those two say nothing about toolwright's code.
 */
function httpImportLoadsTls(): boolean {
  const probe = join(tempDir('tw-loads-'), 'probe.mjs');
  writeFileSync(probe, "import 'node:http';\nconsole.log(process.moduleLoadList.includes('NativeModule tls'));\n");
  const run = spawnSync(process.execPath, [probe], { encoding: 'utf8', timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim() === 'true';
}

describe('what start-up loads', () => {
  it("import 'toolwright' loads no OpenTelemetry, PostgreSQL or Redis package, nor node:crypto or TLS", () => {
    const loaded = loadedBy(['--input-type=module', '-e', `await import(${JSON.stringify(join(root, 'dist', 'index.js'))});`], tempDir('tw-loads-'));
    expect(loaded.some((file) => file.endsWith('/dist/index.js'))).toBe(true); // the recorder saw the import
    expect(unusedIn(loaded)).toEqual([]);
  });

  it('a library server answering over stdio loads none of them either', () => {
    const server = `const { ToolServer, serveStdio } = await import(${JSON.stringify(join(root, 'dist', 'index.js'))});
      serveStdio(new ToolServer({ name: 's', version: '1', tools: [{ name: 'sum', description: 'adds', inputSchema: { type: 'object', properties: { a: { type: 'number' } } }, handler: ({ a }) => String(a + 1) }] }));`;
    const loaded = loadedBy(['--input-type=module', '-e', server], tempDir('tw-loads-'), LIST_TOOLS);
    expect(loaded.some((file) => file.includes('/better-sqlite3/'))).toBe(true); // the default trail opened: the server started
    expect(unusedIn(loaded)).toEqual([]);
  });

  it('serve --stdio with the default configuration loads none of them either', () => {
    const loaded = loadedBy([join(root, 'dist', 'cli', 'main.js'), 'serve', '--stdio'], tempDir('tw-loads-'), LIST_TOOLS);
    expect(loaded.some((file) => file.includes('/better-sqlite3/'))).toBe(true); // the default trail opened: the server started
    const nodesOwn = httpImportLoadsTls() ? ['builtin:tls', 'builtin:crypto'] : [];
    expect(unusedIn(loaded).filter((file) => !nodesOwn.includes(file))).toEqual([]);
  });
});
