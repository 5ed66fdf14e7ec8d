import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findImportCycles, relativeImports, sourceFiles } from '../helpers/import-graph.js';

/**
 * No two modules of src/ import each other, directly or round a longer circle
 * (issue 22): imports point one way, so a layer can be read, tested and
 * bundled without the ones above it. `import type` counts too: a type-only
 * circle is still two files that cannot be understood apart. The console's
 * page (.tsx) counts like any other module.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

describe('import graph of src/', () => {
  it('has no import circles', () => {
    const files = sourceFiles(root);
    const graph = new Map(files.map((file) => [file, relativeImports(file, readFileSync(file, 'utf8'))]));
    const cycles = findImportCycles(graph).map((cycle) => cycle.map((file) => relative(root, file)).join(' → '));
    expect(cycles).toEqual([]);
  });
});

describe('the circle finder', () => {
  const graphOf = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

  it('names every file of a circle, first file repeated at the end', () => {
    expect(findImportCycles(graphOf({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(findImportCycles(graphOf({ a: ['a'] }))).toEqual([['a', 'a']]);
    expect(findImportCycles(graphOf({ a: ['b'], b: ['c'], c: [] }))).toEqual([]);
  });

  it('reads every form of a relative import, type-only and re-exports included, and nothing else', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "import {\n  c,\n  type C,\n} from './c.js';",
      "export { d } from './d.js';",
      "export * from './e.js';",
      "export type { F } from './f.js';",
      "import './g.js';",
      "const h = await import('./h.js');",
      "type I = typeof import('./i.js');",
      "import { join } from 'node:path';",
      "// import { z } from './commented.js';",
      'const text = "import { y } from \'./in-a-string.js\'";',
    ].join('\n');
    const imports = relativeImports('/p/src/x/file.ts', source).map((file) => relative('/p/src', file));
    expect(imports.sort()).toEqual(['b.ts', 'x/a.ts', 'x/c.ts', 'x/d.ts', 'x/e.ts', 'x/f.ts', 'x/g.ts', 'x/h.ts', 'x/i.ts']);
  });

  it('reads an import of a page component as its .tsx file', () => {
    const registry = resolve(root, 'console/ui/panels/registry.ts');
    expect(relativeImports(registry, "import { ConnectPanel } from './connect.js';")).toEqual([resolve(root, 'console/ui/panels/connect.tsx')]);
  });
});
