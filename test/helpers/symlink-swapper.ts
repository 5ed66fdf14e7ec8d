import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { killAndReap } from './process.js';

/**
 * A child process that swaps `<root>/<name>` between a real directory and a
 * symbolic link to `outsideDir`, as fast as it can, by renames (each state
 * change is atomic; between them the name is briefly missing). It stops after
 * `swaps` swaps or `maxMs`, whichever comes first, and reports how many it
 * did. A separate process, so the swaps interleave with the server's file
 * system calls at any point, as an attacker's would.
 */
const SWAPPER = `
const { renameSync } = require('node:fs');
const [name, real, link, target, maxMs] = process.argv.slice(1);
const deadline = Date.now() + Number(maxMs);
let n = 0;
let junk = 0;
// While the name is missing, a call may create a directory there (create_parents): move it aside and
// go on. The calls run on, so one may create it again between the two renames: retry (bounded).
const place = (from, to) => {
  for (let tries = 0; ; tries++) {
    try {
      return renameSync(from, to);
    } catch (err) {
      if (tries === 1000 || !['EISDIR', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes(err.code)) throw err;
      try { renameSync(to, '.swap-junk-' + junk++); } catch (aside) { if (aside.code !== 'ENOENT') throw aside; }
    }
  }
};
process.stdout.write('ready\\n');
while (n < Number(target) && (n % 256 !== 0 || Date.now() < deadline)) {
  place(name, real); place(link, name);   // now a link to the outside
  place(name, link); place(real, name);   // a real directory again
  n++;
}
process.stdout.write(String(n) + '\\n');
`;

export interface Swapper {
  /** Resolves with the number of swaps once the child has stopped. */
  done: Promise<number>;
  stop(): Promise<void>;
}

/** Starts swapping `<root>/<name>` (a real directory) with a link to `outsideDir`; resolves once the child runs. */
export async function startSwapper(root: string, name: string, outsideDir: string, options: { swaps: number; maxMs: number }): Promise<Swapper> {
  const link = path.join(root, `.${name}.swap-link`);
  await fs.symlink(outsideDir, link);
  const child = spawn(process.execPath, ['-e', SWAPPER, name, `.${name}.swap-real`, path.basename(link), String(options.swaps), String(options.maxMs)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const done = new Promise<number>((resolve, reject) => {
    child.on('exit', (code) => {
      const count = Number(out.trim().split('\n').pop());
      if (code === 0 && Number.isInteger(count)) resolve(count);
      else reject(new Error(`swapper exited with ${code}: ${err.slice(0, 500)}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', () => reject(new Error(`swapper did not start: ${err.slice(0, 500)}`)));
  });
  return { done, stop: () => killAndReap(child) };
}
