import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { defineTool, ToolServer } from '../../src/index.js';
import { serveHttp } from '../../src/transports/http-server.js';
import { RUNTIMES, type RuntimeName } from './runtimes.mjs';

// What the runtime tests share: finding a runtime (installed by install.mjs), a throwaway
// project where `toolwright` is this checkout's built dist/, the runtime's server process, and the
// checks every runtime's server and client must pass.

export const ROOT = join(import.meta.dirname, '../..');
export type { RuntimeName } from './runtimes.mjs';

/**
 * The runtime's executable; undefined (the file's tests skip, saying so loudly) when it is not
 * installed. Under CI=true a missing runtime fails: CI installs them first.
 */
export function runtimeBinary(name: RuntimeName): string | undefined {
  if (!existsSync(join(ROOT, 'dist/http.js'))) throw new Error('the runtime tests import the built package: run `npm run build` first');
  const binary = RUNTIMES[name].binary;
  if (existsSync(binary)) return binary;
  const how = `node test/runtimes/install.mjs ${name}`;
  if (process.env.CI === 'true') throw new Error(`${name} is not installed: CI runs \`${how}\` before the tests`);
  console.warn(
    `\n*** SKIPPED: the ${name} runtime tests: ${name} is not installed. Install it with \`${how}\` (from the npm registry, into .cache/runtimes/) ***\n`,
  );
  return undefined;
}

/** A temp project with a package.json and `node_modules/toolwright` → this checkout (its dist/), holding copies of `files`. */
export function exampleProject(files: string[]): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tw-runtime-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'runtime-example', private: true, type: 'module' }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'toolwright'), 'dir');
  for (const file of files) copyFileSync(file, join(dir, basename(file)));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ServingProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts a server process and waits for its "serving on <url>" line. */
export function startServing(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<ServingProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`no "serving on" line within 20 s:\n${text}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      text += chunk;
      const match = /serving on (http:\/\/\S+)/.exec(text);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1], child, output: () => text, stop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before serving:\n${text}`));
    });
  });
}

/** Runs a program to its end; resolves to the JSON of its last stdout line (rejects with its output when it fails). */
export function runForJson(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<unknown> {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').at(-1) ?? '';
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(last));
      } catch (cause) {
        reject(new Error(`${command} ${args.join(' ')} failed (${String(cause)}):\n${out}\n${err}`));
      }
    });
  });
}

/** What the client core reports from inside a runtime (fixtures/client-core.mjs) against a server with the examples' tools. */
export const CLIENT_CORE_OUTCOME = {
  tools: ['calculate_sum', 'count'],
  sum: [{ type: 'text', text: '5' }],
  counted: [{ type: 'text', text: 'counted 3' }],
  progress: [1, 2, 3],
};

/** The examples' two tools, for the Node-served server the runtimes' client core calls. */
export async function serveExampleToolsOnNode(): Promise<{ url: string; close: () => Promise<void> }> {
  const sum = defineTool({
    name: 'calculate_sum',
    description: 'Adds a and b.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }) => String(a + b),
  });
  const count = defineTool({
    name: 'count',
    description: 'Counts to n, reporting progress.',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: async ({ n }, ctx) => {
      for (let i = 1; i <= n; i++) {
        ctx.progress(i, n);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return `counted ${n}`;
    },
  });
  const server = new ToolServer({ name: 'on-node', audit: false, tools: [sum, count] });
  const http = await serveHttp(server, { port: 0 });
  return { url: http.url, close: () => http.close() };
}

/** The official SDK client (v2) against `url`, in the era given: lists, adds, and counts with progress over SSE. */
export async function expectSdkClientServes(url: string, era: '2026-07-28' | '2025-11-25'): Promise<void> {
  const mode = era === '2026-07-28' ? { pin: era } : 'legacy';
  const client = new Client({ name: 'runtime-test', version: '1.0.0' }, { versionNegotiation: { mode } } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 10_000 });
  try {
    expect(client.getProtocolEra()).toBe(era === '2026-07-28' ? 'modern' : 'legacy');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['calculate_sum', 'count']);
    expect((await client.callTool({ name: 'calculate_sum', arguments: { a: 2, b: 3 } })).content).toEqual([{ type: 'text', text: '5' }]);
    const seen: number[] = [];
    const counted = await client.callTool(
      { name: 'count', arguments: { n: 3 } },
      { onprogress: (p: { progress: number }) => seen.push(p.progress), timeout: 10_000 },
    );
    expect(counted.content).toEqual([{ type: 'text', text: 'counted 3' }]);
    expect(seen).toEqual([1, 2, 3]);
  } finally {
    await client.close();
  }
}

/** toolwright's client core from Node: the built package (dist/client/core.js), run as a process in `project` (made with client-core fixtures). */
export async function expectClientCoreServes(url: string, project: string): Promise<void> {
  expect(await runForJson(process.execPath, ['client-core-main.mjs'], { cwd: project, env: { MCP_URL: url } })).toEqual(CLIENT_CORE_OUTCOME);
}

/** The fixtures that run the client core in a runtime (copied into an example project). */
export const CLIENT_CORE_FIXTURES = [join(ROOT, 'test/runtimes/fixtures/client-core.mjs'), join(ROOT, 'test/runtimes/fixtures/client-core-main.mjs')];
