import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { killAndReap } from '../../helpers/process.js';
import { tempDir } from '../../helpers/temp.js';
import { modernMeta } from '../../helpers/wire.js';

// The reported freeze, end to end (issue 18, item 1): `toolwright serve` on
// stdio, as a desktop client starts it, given the pattern that froze it. The
// server must keep answering other requests and must stop on SIGTERM.

const main = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => killAndReap(child));

function serve(cwd: string) {
  child = spawn(process.execPath, [main, 'serve', '--stdio'], {
    cwd,
    env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn' },
  });
  const replies = new Map<unknown, Record<string, any>>();
  const waiters: Array<() => void> = [];
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const msg = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if ('id' in msg) replies.set(msg.id, msg);
      for (const w of waiters.splice(0)) w();
    }
  });
  const send = (id: number, method: string, params: Record<string, unknown> = {}) =>
    child!.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } })}\n`);
  /** The reply to `id`, or undefined if none came within `ms` (a bounded wait, not a speed check). */
  const reply = async (id: number, ms: number) => {
    const deadline = Date.now() + ms;
    while (!replies.has(id) && Date.now() < deadline) {
      await Promise.race([new Promise<void>((r) => waiters.push(r)), new Promise((r) => setTimeout(r, 100))]);
    }
    return replies.get(id);
  };
  return { child, send, reply };
}

/** A project directory whose ./workspace (the default root) holds a few names and 1,000 small files. */
async function workspaceDir(): Promise<string> {
  const cwd = tempDir('tw-search-stdio-');
  // A project: without one, the default workspace is in the per-user state dir (docs/audit.md, "Where state lives").
  await fs.writeFile(path.join(cwd, 'package.json'), '{}');
  const root = path.join(cwd, 'workspace');
  await fs.mkdir(path.join(root, 'flat'), { recursive: true });
  for (const name of ['box', 'fax', `${'a'.repeat(40)}`]) await fs.writeFile(path.join(root, name), 'x');
  await Promise.all(Array.from({ length: 1_000 }, (_, i) => fs.writeFile(path.join(root, 'flat', `f${i}.txt`), `the needle ${i}\n`)));
  return cwd;
}

describe('toolwright serve on stdio, given hostile search patterns', () => {
  it('answers tools/list while it searches, answers the search, and ends on SIGTERM', async () => {
    const s = serve(await workspaceDir());
    s.send(0, 'tools/list'); // the server is up and reading before the search starts
    expect(await s.reply(0, 15_000)).toBeDefined();

    s.send(1, 'tools/call', { name: 'search_files', arguments: { pattern: `${'*'.repeat(490)}x` } });
    await new Promise((r) => setTimeout(r, 300)); // the server is busy with the search now, or done
    s.send(2, 'tools/list');
    const list = await s.reply(2, 15_000);
    expect(list?.result?.tools.map((t: { name: string }) => t.name)).toContain('search_files');
    const search = await s.reply(1, 15_000);
    expect(search?.result?.structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(['box', 'fax']);

    // A long content search in flight, then SIGTERM: the server stops rather than spin on.
    s.send(3, 'tools/call', { name: 'search_files', arguments: { content: 'needle', pattern: `${'*'.repeat(400)}.txt`, max_results: 1_000 } });
    await new Promise((r) => setTimeout(r, 50));
    const exited = once(s.child, 'exit');
    s.child.kill('SIGTERM');
    const gone = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 15_000))]);
    expect(gone).toBe(true);
    expect(s.child.signalCode).not.toBe('SIGKILL');
  }, 60_000);

  it('exits when its client goes away in the middle of a hostile search', async () => {
    const s = serve(await workspaceDir());
    s.send(0, 'tools/list');
    expect(await s.reply(0, 15_000)).toBeDefined();
    s.send(1, 'tools/call', { name: 'search_files', arguments: { pattern: `${'*'.repeat(490)}x` } });
    s.send(2, 'tools/call', { name: 'search_files', arguments: { content: 'needle', pattern: `${'*'.repeat(400)}.txt`, max_results: 1_000 } });
    await new Promise((r) => setTimeout(r, 100));
    const exited = once(s.child, 'exit');
    s.child.stdin.end();
    const gone = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 15_000))]);
    expect(gone).toBe(true);
  }, 60_000);
});
