// `node --import <this file>`: the process writes every module it loaded, one file URL or path a
// line, to the file named by TOOLWRIGHT_TEST_LOADED when it exits: ES modules as the loader
// resolves them (hooks run on their own thread, record-loads-hooks.mjs), CommonJS modules from
// require's cache (better-sqlite3, ioredis and pg load through createRequire or from ESM), and
// Node's built-in modules as `builtin:<name>` (process.moduleLoadList).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const log = process.env.TOOLWRIGHT_TEST_LOADED;
if (log) {
  register('./record-loads-hooks.mjs', import.meta.url);
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => `builtin:${m.slice('NativeModule '.length)}`);
    appendFileSync(log, `${[...Object.keys(cache), ...builtins].join('\n')}\n`);
  });
}
