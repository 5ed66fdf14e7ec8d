// node:fs plus the subset of globSync the conformance suite uses: "**/<file name>" under a cwd.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const match = /^\*\*\/([^*?[\]{}]+)$/.exec(pattern);
  if (!match) throw new Error(`globSync shim supports only "**/<name>" patterns, got ${pattern}`);
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(cwd, dir), { withFileTypes: true })) {
      const rel = dir ? path.join(dir, entry.name) : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name === match[1]) found.push(rel);
    }
  };
  walk('');
  return found;
}
