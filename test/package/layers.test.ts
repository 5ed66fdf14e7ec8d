import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findImportCycles, relativeImports, sourceFiles } from '../helpers/import-graph.js';

/**
 * The layer table of docs/architecture.md ("What each layer imports") is the rule: every import
 * between two top-level parts of src/ (static, type-only, re-export, `import()`, `typeof
 * import()`; .ts and .tsx alike) must be one its row allows. The table is read from the page
 * itself, so the map and the code cannot drift apart. The root files of src/ are the `entry`
 * layer: the public entry points, nothing else (a helper they share belongs in a folder below).
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../src');
const page = readFileSync(resolve(here, '../../docs/architecture.md'), 'utf8');

const ENTRY = 'entry';

/** The rows of the table under "What each layer imports": layer → the layers it may import. */
function layerTable(markdown: string): Map<string, Set<string>> {
  const start = markdown.indexOf('What each layer imports');
  if (start === -1) throw new Error('docs/architecture.md has no "What each layer imports" table');
  const lines = markdown.slice(start).split('\n').slice(1);
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows = lines.slice(first, first + lines.slice(first).findIndex((line) => !line.startsWith('|'))).slice(2);
  return new Map(
    rows.map((row) => {
      const [layer, imports] = row.split('|').slice(1, 3);
      const name = /^\s*`([^`]+)`\s*$/.exec(layer)?.[1];
      if (!name) throw new Error(`a layer row must name one layer in backticks: ${row}`);
      return [name, new Set([...imports.matchAll(/`([^`]+)`/g)].map((m) => m[1]))];
    }),
  );
}

/** A file's layer: its top-level folder of src/, or `entry` for a file at the root. */
function layerOf(file: string): string {
  const path = relative(root, file);
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : ENTRY;
}

const table = layerTable(page);
const files = sourceFiles(root);

describe('the layers of src/ (docs/architecture.md)', () => {
  it('has a row for every folder of src/ and the entry files, and none for what does not exist', () => {
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect([...table.keys()].sort()).toEqual([...folders, ENTRY].sort());
    const unknown = [...table].flatMap(([layer, imports]) => [...imports].filter((name) => !table.has(name)).map((name) => `${layer}: ${name}`));
    expect(unknown).toEqual([]);
  });

  it('keeps at the root of src/ only the entry points the page lists', () => {
    const roots = files.filter((file) => layerOf(file) === ENTRY).map((file) => relative(root, file));
    const listed = roots.filter((file) => page.includes(`\`src/${file}\``));
    expect(roots).toEqual(listed);
  });

  it('is a stack: no layer imports, through the table, one that imports it', () => {
    const graph = new Map([...table].map(([layer, imports]) => [layer, [...imports]]));
    expect(findImportCycles(graph)).toEqual([]);
  });

  it('allows every import between two layers that the code makes', () => {
    const refused = files.flatMap((file) => {
      const from = layerOf(file);
      return relativeImports(file, readFileSync(file, 'utf8'))
        .filter((target) => /\.tsx?$/.test(target))
        .filter((target) => {
          const to = layerOf(target);
          return to !== from && !table.get(from)?.has(to);
        })
        .map((target) => `${relative(root, file)} → ${relative(root, target)}`);
    });
    expect(refused).toEqual([]);
  });
});

describe('the layer table reader', () => {
  it('reads each row as a layer and the layers named in its second column, notes ignored', () => {
    const markdown = [
      'What each layer imports:',
      '',
      '| layer | imports from | why |',
      '|---|---|---|',
      '| `a` | nothing of toolwright | the ground |',
      "| `b` | `a` | uses `c`'s words in a note only |",
      '',
      'after the table',
    ].join('\n');
    expect(layerTable(markdown)).toEqual(
      new Map([
        ['a', new Set()],
        ['b', new Set(['a'])],
      ]),
    );
  });
});
