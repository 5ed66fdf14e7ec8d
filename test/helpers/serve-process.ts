import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished } from 'vitest';
import { killAndReap } from './process.js';
import { MODERN, modernMeta } from './wire.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The built CLI (`npm run build` first; npm test does), as a client would start it. Not the
 * sources through tsx: that start cost ~2 s of CPU against ~0.5 s, in some hundred processes a run.
 */
export const cliCommand = [process.execPath, `${root}dist/cli/main.js`];
export const lifecycleTools = `${root}test/fixtures/cli/lifecycle-tools.mjs`;

type Msg = Record<string, any>;

/** `toolwright serve …` as a child process, killed (and reaped) when the test finishes. */
export function startServe(args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const child: ChildProcessWithoutNullStreams = spawn(cliCommand[0], [...cliCommand.slice(1), 'serve', ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onTestFinished(() => killAndReap(child)); // before its cwd is removed (finished hooks run last first)
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, stderr: () => stderr, exit };
}

/** `toolwright serve --http` on a free port; resolves once it prints its URL. */
export async function startHttpServe(args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const serve = startServe(['--http', '--port', '0', ...args], options);
  await expect.poll(serve.stderr, { timeout: 15_000 }).toMatch(/serving \d+ tool\(s\) on http:\/\/\S+/);
  const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(serve.stderr())![1];
  return { ...serve, url, call: modernToolCalls(url) };
}

/** Modern tools/call requests to `url` (or another `target`), each over its own connection; resolves with the response (not yet read). */
export function modernToolCalls(url: string) {
  let nextId = 1;
  return (name: string, args: Record<string, unknown> = {}, target = url) =>
    fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta() } }),
    });
}

/** `toolwright serve --stdio`, with newline-delimited JSON-RPC on its stdin and stdout. */
export function startStdioServe(args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const serve = startServe(['--stdio', ...args], options);
  const answers: Msg[] = [];
  let buffer = '';
  serve.child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      answers.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  let nextId = 1;
  /** Sends a modern tools/call; resolves with its answer. */
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Msg> => {
    const id = nextId++;
    serve.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta() } })}\n`);
    await expect.poll(() => answers.find((m) => m.id === id), { timeout: 15_000 }).toBeDefined();
    return answers.find((m) => m.id === id)!;
  };
  return { ...serve, answers, call };
}

/** The first log line on stderr that parses as JSON and matches `pattern` in its msg. */
export function logLine(stderr: string, pattern: RegExp): Msg | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line);
      if (pattern.test(parsed.msg)) return parsed;
    } catch {
      // not a log line
    }
  }
  return undefined;
}
