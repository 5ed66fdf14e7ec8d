import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks } from '../helpers/markdown-blocks.js';
import { tempDir } from '../helpers/temp.js';

/**
 * docs/testing.md's vitest examples are run, not only type-checked (examples.test.ts does that):
 * each block whose first line names a test file (`// calculator.test.ts`) is written to a project
 * of its own, where `toolwright` is this checkout's built package (as a user installs it) and the
 * examples run under vitest in a child process. Every test in them must pass.
 */
const root = join(import.meta.dirname, '../..');
const guide = codeBlocks(readFileSync(join(root, 'docs/testing.md'), 'utf8'));
const testFiles = guide.flatMap((block) => {
  const name = /^\/\/ ([\w-]+\.test\.ts)$/.exec(block.code.split('\n')[0]!)?.[1];
  return name ? [{ name, code: block.code }] : [];
});

describe("docs/testing.md's vitest examples", () => {
  it('are test files, and every test in them passes against the built package', () => {
    expect(testFiles.map((f) => f.name)).toEqual(['calculator.test.ts', 'delete-report.test.ts', 'live-tools.test.ts']);
    const project = tempDir('tw-testing-guide-');
    writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(root, join(project, 'node_modules', 'toolwright'), 'dir');
    symlinkSync(join(root, 'node_modules', 'vitest'), join(project, 'node_modules', 'vitest'), 'dir');
    for (const { name, code } of testFiles) writeFileSync(join(project, name), code);
    const report = join(project, 'report.json');
    const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=json', `--outputFile=${report}`], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    const results = JSON.parse(readFileSync(report, 'utf8')) as {
      numTotalTests: number;
      testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }> }>;
    };
    const outcomes = results.testResults.flatMap((file) =>
      file.assertionResults.map(
        (t) => `${file.name.slice(project.length + 1)} > ${t.fullName}: ${t.status}${t.failureMessages.length ? `\n${t.failureMessages[0]}` : ''}`,
      ),
    );
    expect(outcomes.filter((o) => !o.endsWith(': passed'))).toEqual([]);
    expect(results.numTotalTests).toBe(7);
    expect(run.status, run.stderr).toBe(0);
  }, 120_000);
});
