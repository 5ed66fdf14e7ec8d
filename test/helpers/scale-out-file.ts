import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestNginx } from './nginx.js';
import { killAndReap } from './process.js';
import { scaleOutTools } from './scale-out.js';
import { cliCommand, modernToolCalls } from './serve-process.js';
import { sharedTempDir } from './temp.js';

const SERVING = /serving \d+ tool\(s\) on (http:\/\/\S+)/;

/** `toolwright serve --http` on a free port, as startHttpServe gives it, but owned by the caller (not one test): `stop()` kills it. */
async function startFileServe(args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const child: ChildProcessWithoutNullStreams = spawn(cliCommand[0], [...cliCommand.slice(1), 'serve', '--http', '--port', '0', ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // Waits for the line itself (each chunk of stderr), not on a poll; an exit before it fails at once.
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // not left running when the start is given up
      reject(new Error(`serve did not start within 30 s: ${stderr}`));
    }, 30_000); // a bound for a loaded machine, not a wait
    child.stderr.on('data', (d) => {
      stderr += d;
      const found = SERVING.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    void exit.then((how) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${how.code ?? how.signal}) before serving: ${stderr}`));
    });
  });
  return { child, stderr: () => stderr, exit, url, call: modernToolCalls(url), stop: () => killAndReap(child) };
}

/**
 * The cluster of startCluster (test/helpers/scale-out.ts) for a file's tests to share: started in
 * `beforeAll`, stopped by the `destroy` it returns (return it from the hook). A cluster costs some
 * 3.5 s of CPU to start (three servers and nginx); tests that need no fresh one share it.
 */
export async function startFileCluster(server: Record<string, unknown>, count = 3) {
  const temp = sharedTempDir('tw-scale-out-');
  const cwd = temp.dir;
  const config = { tools: [scaleOutTools], server: { requestStateSecret: `scale-out-${process.pid}`, ...server } };
  writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify(config));
  const started = await Promise.allSettled(
    Array.from({ length: count }, () => startFileServe(['--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } })),
  );
  const instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  let nginx: TestNginx | undefined;
  const destroy = async () => {
    await nginx?.destroy();
    await Promise.all(instances.map((s) => s.stop()));
    temp.remove();
  };
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    nginx = await TestNginx.create(instances.map((s) => Number(new URL(s.url).port)));
  } catch (err) {
    await destroy();
    throw err;
  }
  return { cwd, instances, nginx, destroy };
}
