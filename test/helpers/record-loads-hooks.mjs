// The loader hooks of record-loads.mjs: each resolved ES module's URL appended to the log as it loads.
import { appendFileSync } from 'node:fs';

const log = process.env.TOOLWRIGHT_TEST_LOADED;

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (log) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
