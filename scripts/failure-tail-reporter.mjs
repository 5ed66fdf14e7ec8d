// A vitest reporter beside the default one, for scripts/test.mjs: it writes what failed (each
// failed test with the start of its error, errors outside any test, unhandled errors) and which
// tests passed only when run again (`--retry`) to the file $TOOLWRIGHT_FAILURE_TAIL names, so the
// run can print them again as its last lines. CI keeps only the tail of a long log, and the
// conformance output printed after the test files would otherwise push vitest's own summary out.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MESSAGE_LINES = 6;
const OWN_FRAMES = 3;

/** An error as vitest serialized it, shortened (a line to 1,000 characters: a logged error's stack fits): its message's first lines and the first frames of its own code (not node_modules, not Node's). */
function describe(error) {
  const message = String(error?.message ?? error)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, MESSAGE_LINES);
  const frames = String(error?.stack ?? '')
    .split('\n')
    .filter((line) => /^\s*at /.test(line) && !/node_modules|<anonymous>|node:internal/.test(line))
    .slice(0, OWN_FRAMES);
  return [...message, ...frames].map((line) => `      ${line.trim().slice(0, 1000)}`);
}

/** A test's errors, described; a retried test keeps each attempt's error, and the same one is written once. */
function errorsOf(result) {
  return [...new Set((result.errors ?? []).map((error) => describe(error).join('\n')))];
}

export default class FailureTailReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const target = process.env.TOOLWRIGHT_FAILURE_TAIL;
    if (!target) return;
    const lines = [];
    for (const module of testModules) {
      const where = `${module.project.name} ${module.relativeModuleId}`;
      for (const error of module.errors()) lines.push(`  ✗ ${where} (outside any test)`, ...describe(error));
      for (const test of module.children.allTests()) {
        const result = test.result();
        const diagnostic = test.diagnostic();
        if (result.state === 'passed' && diagnostic?.flaky) {
          lines.push(`  ⚠ flaky: ${where} > ${test.fullName} failed ${diagnostic.retryCount} time(s) before it passed`);
          lines.push(...errorsOf(result));
        }
        if (result.state !== 'failed') continue;
        lines.push(`  ✗ ${where} > ${test.fullName}`, ...errorsOf(result));
      }
    }
    for (const error of unhandledErrors) lines.push('  ✗ unhandled error', ...describe(error));
    writeFileSync(target, lines.join('\n'));
  }
}

/**
 * For a script that runs the suite: the vitest arguments that run a failed test once more and add
 * this reporter, the environment it writes under, and `read()`, which returns what it wrote (''
 * when nothing failed) and removes its folder. A test that passes when run again is listed as
 * flaky, to be fixed, and does not fail the run: on two shared cores a test that waits on a child
 * process can lose a race once (the conformance run has the same rule).
 */
export function failureTail() {
  const dir = mkdtempSync(join(tmpdir(), 'toolwright-test-'));
  const file = join(dir, 'failed.txt');
  return {
    args: ['--retry=1', '--reporter=default', `--reporter=${fileURLToPath(import.meta.url)}`],
    env: { TOOLWRIGHT_FAILURE_TAIL: file },
    read() {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      rmSync(dir, { recursive: true, force: true });
      return text;
    },
  };
}

/** The run's last lines: what failed (exit code not 0), or what passed only when run again. */
export function tailMessage(label, code, tail) {
  if (code !== 0) return `✗ ${label} failed (exit ${code})${tail ? `, what failed:\n${tail}` : ' (no test failed: see its output above)'}`;
  return tail ? `\n⚠ ${label} passed, with failures that did not hold when run again:\n${tail}` : '';
}
