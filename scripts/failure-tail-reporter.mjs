// A vitest reporter beside the default one, for scripts/test.mjs: it writes what failed (each
// failed test with the start of its error, errors outside any test, unhandled errors) to the file
// $TOOLWRIGHT_FAILURE_TAIL names, so the run can print it again as its last lines. CI keeps only
// the tail of a long log, and the conformance output printed after the test files would otherwise
// push vitest's own summary out of it.
import { writeFileSync } from 'node:fs';

const MESSAGE_LINES = 6;
const OWN_FRAMES = 3;

/** An error as vitest serialized it, shortened: its message's first lines and the first frames of its own code (not node_modules, not Node's). */
function describe(error) {
  const message = String(error?.message ?? error)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, MESSAGE_LINES);
  const frames = String(error?.stack ?? '')
    .split('\n')
    .filter((line) => /^\s*at /.test(line) && !/node_modules|<anonymous>|node:internal/.test(line))
    .slice(0, OWN_FRAMES);
  return [...message, ...frames].map((line) => `      ${line.trim().slice(0, 300)}`);
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
        if (result.state !== 'failed') continue;
        lines.push(`  ✗ ${where} > ${test.fullName}`);
        for (const error of result.errors ?? []) lines.push(...describe(error));
      }
    }
    for (const error of unhandledErrors) lines.push('  ✗ unhandled error', ...describe(error));
    writeFileSync(target, lines.join('\n'));
  }
}
