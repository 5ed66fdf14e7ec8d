import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without declarations
import { startSlotServer } from '../../scripts/conformance/slots.mjs';

// scripts/conformance/run-client.mjs is the command the conformance suite runs per client
// scenario: it waits for a slot, then runs the compiled client in its own process. Real
// processes here: a stand-in client reports to this test over TCP and stays until told to go.
const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'toolwright-slots-'));
const standIn = join(dir, 'client.mjs');
writeFileSync(
  standIn,
  `import { connect } from 'node:net';
   const report = connect(Number(process.env.REPORT_PORT), '127.0.0.1');
   report.write(process.argv[2] + '\\n');
   report.on('data', (d) => { if (String(d).includes('exit')) process.exit(0); });`,
);

type Slots = { port: number; close(): Promise<void> };
type SlotState = { waiting: number; holding: number };

/** A slot server, and a way to wait until its state is one the test expects. */
async function slotServer(count: number): Promise<{ slots: Slots; reach(predicate: (state: SlotState) => boolean): Promise<SlotState> }> {
  let state: SlotState = { waiting: 0, holding: 0 };
  const watchers = new Set<() => void>();
  const slots: Slots = await startSlotServer(count, (next: SlotState) => {
    state = next;
    for (const watcher of watchers) watcher();
  });
  cleanups.push(() => slots.close());
  const reach = (predicate: (s: SlotState) => boolean) =>
    new Promise<SlotState>((resolve) => {
      const check = () => predicate(state) && (watchers.delete(check), resolve(state));
      watchers.add(check);
      check();
    });
  return { slots, reach };
}
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stand-in clients that are running (name → the connection they reported on), and the most at once. */
async function reportServer(): Promise<{ port: number; running: Map<string, Socket>; peak(): number; next(): Promise<string> }> {
  const running = new Map<string, Socket>();
  let peak = 0;
  const arrivals: string[] = [];
  let wake: (() => void) | undefined;
  const server: Server = createServer((socket) => {
    socket.once('data', (d) => {
      const name = String(d).trim();
      running.set(name, socket);
      peak = Math.max(peak, running.size);
      socket.on('close', () => running.delete(name));
      arrivals.push(name);
      wake?.();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => server.close(r)));
  const next = async () => {
    while (arrivals.length === 0) await new Promise<void>((r) => (wake = r));
    return arrivals.shift()!;
  };
  return { port: (server.address() as { port: number }).port, running, peak: () => peak, next };
}

function client(slots: Slots, reportPort: number, name: string, runLimitMs = 60_000): ChildProcess {
  const child = spawn(process.execPath, [join(root, 'scripts/conformance/run-client.mjs'), String(slots.port), String(runLimitMs), standIn, name], {
    env: { ...process.env, REPORT_PORT: String(reportPort) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  return child;
}

describe('conformance client slots', () => {
  it('runs at most N clients at once; the next starts when one ends, however it ends', async () => {
    const { slots, reach } = await slotServer(2);
    const report = await reportServer();
    const children = ['a', 'b', 'c', 'd'].map((name) => [name, client(slots, report.port, name)] as const);
    // All four are in line, and nobody ends until told to: two run, two wait.
    expect(await reach((s) => s.waiting + s.holding === 4)).toEqual({ waiting: 2, holding: 2 });
    const first = [await report.next(), await report.next()];
    // One exits normally: one more starts.
    report.running.get(first[0]!)!.write('exit\n');
    const third = await report.next();
    // One is killed (as the suite kills a client that times out): its slot comes back too.
    children.find(([name]) => name === first[1])![1].kill('SIGKILL');
    const fourth = await report.next();
    expect(new Set([...first, third, fourth])).toEqual(new Set(['a', 'b', 'c', 'd']));
    expect(report.peak()).toBe(2);
  }, 60_000);

  it("passes the server URL as the client's only argument, and bounds a client from when it has its slot", async () => {
    const { slots } = await slotServer(1);
    const report = await reportServer();
    const child = client(slots, report.port, 'http://127.0.0.1:1/mcp', 200);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    expect(await report.next()).toBe('http://127.0.0.1:1/mcp');
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('did not finish within 200 ms of starting');
  }, 60_000);

  it('fails at once, saying why, when there is no slot server', async () => {
    const slots: Slots = await startSlotServer(1);
    await slots.close();
    const child = client(slots, 1, 'x');
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('could not get a slot');
  }, 60_000);
});
