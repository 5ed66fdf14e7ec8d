#!/usr/bin/env node
// `npm test` after its pretest (the build, which every test of the built CLI needs): the test
// files, and beside them the checks that only read sources (type-check, lint) followed by the
// official conformance suite.
//
// Why beside and not after: most test files spend their time waiting on a program of their own
// (a child process, Chromium, an engine), so two workers left about a quarter of two cores idle,
// and the checks and the conformance suite then ran on their own for another ~70 s. They now run
// at a lower scheduling priority (nice 10) in that idle time: they take CPU the test files are not
// using, and never slow a test that is waiting on a deadline. Their output is held and printed
// whole when the test files have finished, so the two never interleave.
//
// Usage: node scripts/test.mjs [vitest arguments…]   (exits 1 if anything failed)
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { failureTail, tailMessage } from './failure-tail-reporter.mjs';

const BACKGROUND_NICENESS = 10;
const npmCli = process.env.npm_execpath;

/** `npm run <name>` as a child: under npm, with npm's own CLI; started by hand, npm from the PATH. */
function npmRun(name, options) {
  const [command, args] = npmCli ? [process.execPath, [npmCli, 'run', '--silent', name]] : ['npm', ['run', '--silent', name]];
  return run(command, args, options);
}

/** Runs a command; resolves to its exit code and (when not inherited) its output. */
function run(command, args, { background = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: background ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      shell: !npmCli && process.platform === 'win32',
    });
    const output = [];
    if (background) {
      // Children inherit the niceness, so the conformance suite's servers and clients run low too.
      try {
        setPriority(child.pid, BACKGROUND_NICENESS);
      } catch {
        // Not permitted or not supported here: it runs at normal priority, which is only slower.
      }
      child.stdout.on('data', (d) => output.push(d));
      child.stderr.on('data', (d) => output.push(d));
    }
    child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(output) }));
  });
}

async function backgroundChecks() {
  const checks = await Promise.all(['typecheck', 'lint'].map(async (name) => ({ name, ...(await npmRun(name, { background: true })) })));
  const conformance = { name: 'conformance', ...(await npmRun('conformance', { background: true })) };
  return [...checks, conformance];
}

/** The lines of a check's output that name a failure (the conformance suite's FAILURE checks, ✗ lines, errors), at most 60. */
function whatFailed(text) {
  return text
    .split('\n')
    .filter((line) => /✗|FAILURE|WARNING\]|\berror\b|Error:|[1-9]\d* failed/i.test(line))
    .slice(0, 60)
    .map((line) => `  ${line.slice(0, 400)}`);
}

const started = Date.now();
// Node 20 reads every certificate NODE_EXTRA_CA_CERTS names at each process start (~60 ms of CPU
// for the system bundle): the conformance run starts ~150 Node processes, none reaching past
// 127.0.0.1. (test/helpers/global-setup.ts drops it for the test files, however vitest is started.)
delete process.env.NODE_EXTRA_CA_CERTS;
const background = backgroundChecks();
const vitestBin = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
// What failed in the test files, and what passed only when run again (repeated at the end).
const tail = failureTail();
Object.assign(process.env, tail.env);
const tests = await run(process.execPath, [vitestBin, 'run', ...tail.args, ...process.argv.slice(2)]);
const testsTail = tail.read();
const checks = await background;

let failed = tests.code !== 0;
for (const { name, code, output } of checks) {
  process.stdout.write(`\n> ${name}\n${output}`);
  if (code !== 0) {
    failed = true;
    console.error(`✗ npm run ${name} failed (exit ${code})`);
  }
}
const testsMessage = tailMessage('vitest', tests.code, testsTail);
if (testsMessage) (tests.code !== 0 ? console.error : console.log)(testsMessage);
// CI keeps only the tail of a long log: the lines that say what failed are repeated last.
for (const { name, code, output } of checks) {
  const text = output.toString();
  const flaky = text.split('\n').filter((line) => line.includes('⚠ flaky'));
  if (flaky.length) console.log(`\n⚠ npm run ${name} passed, with failures that did not hold when run again:\n${flaky.join('\n')}`);
  if (code === 0) continue;
  const lines = whatFailed(text);
  if (lines.length) console.error(`\n✗ npm run ${name}, what failed:\n${lines.join('\n')}`);
}
console.log(`\nnpm test: test files, type-check, lint and conformance in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
