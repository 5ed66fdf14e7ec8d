import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The edit loop's run (`npm run test:quick`): every test file except those that start a real
 * program of their own — the built CLI, a server or a bundled TypeScript program (tsProgram) as
 * a child process, a terminal (tmux), a browser (Chromium), or an engine (redis-server,
 * PostgreSQL, nginx). Those are most of the suite's time; `npm test` runs them all, and CI
 * runs `npm test`.
 * Found by what a file calls, so a new test lands in the right run without a list to keep.
 */
const STARTS_A_PROGRAM =
  /\b(startBuiltCli|builtCli|cliCommand|tsProgram|startServe|startHttpServe|startStdioServe|startConsoleProcess|connectedConsole|launchChromium|requireChromium|startTmux|tmux|startRedis|startPostgres|startCluster|nginx|spawn|execFile|fork)\b/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const slow = testFiles('test').filter((file) => STARTS_A_PROGRAM.test(readFileSync(file, 'utf8')));

const quick = mergeConfig(base, defineConfig({ test: { exclude: ['**/node_modules/**', ...slow] } }));
// A project that does not extend the root (the HTTP fetch face's) leaves the slow files out too.
for (const project of quick.test?.projects ?? []) {
  if (typeof project === 'object' && 'test' in project && project.test && !('extends' in project)) project.test.exclude = ['**/node_modules/**', ...slow];
}
export default quick;
