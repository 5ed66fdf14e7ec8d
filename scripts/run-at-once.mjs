#!/usr/bin/env node
// Runs npm scripts at the same time (`npm test`'s pretest: build, typecheck and lint, which read
// the sources and write nothing another reads), each one's output printed whole as it ends, in
// the order named. Exits 1 if any failed. One after the other they took ~16 s on two quiet
// cores with one of them often idle.
// Usage: node scripts/run-at-once.mjs <npm script>…
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
const npm = process.env.npm_execpath;
const runs = names.map(
  (name) =>
    new Promise((resolve) => {
      // Under npm, npm_execpath is npm's own CLI (run with this node); started by hand, npm from the PATH.
      const [command, args] = npm ? [process.execPath, [npm, 'run', '--silent', name]] : ['npm', ['run', '--silent', name]];
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: !npm && process.platform === 'win32' });
      const output = [];
      child.stdout.on('data', (d) => output.push(d));
      child.stderr.on('data', (d) => output.push(d));
      child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
      child.on('close', (code) => resolve({ name, code, output: Buffer.concat(output) }));
    }),
);
let failed = false;
for (const run of runs) {
  const { name, code, output } = await run;
  process.stdout.write(`\n> ${name}\n${output}`);
  if (code !== 0) {
    failed = true;
    console.error(`✗ npm run ${name} failed (exit ${code})`);
  }
}
process.exit(failed ? 1 : 0);
