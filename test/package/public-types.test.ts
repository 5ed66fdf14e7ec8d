import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Every type a public declaration names (an option, a callback's parameter, a returned
// object) must be importable by name from some entry point: a user who writes
// `const auth: ResourceServerOptions = …` or a TaskStore of their own must not have to
// dig in dist/. Read from the published declarations (npm test builds dist/ first).
const root = new URL('../../', import.meta.url).pathname;
const ENTRIES = ['index', 'http', 'middleware', 'client', 'client/core', 'testing', 'toolsets', 'config', 'gateway'];

const scratch = mkdtempSync(join(tmpdir(), 'toolwright-public-types-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the public API names only exported types', () => {
  it('every exported type a public declaration refers to is exported from an entry point (Caller, TaskStore, ResultStore, Logger, the auth options …)', () => {
    const missing = unexportedReferences(withStarTargets(ENTRIES.map((e) => `${root}dist/${e}.d.ts`)));
    expect(missing).toEqual([]);
  });

  it('the types a user names for callers, stores and auth options are among them', () => {
    const named = publicNames(withStarTargets(ENTRIES.map((e) => `${root}dist/${e}.d.ts`)));
    for (const name of [
      'Caller',
      'CallerMethod',
      'AuthInfo',
      'ResourceServerOptions',
      'ApiKeyEntry',
      'IntrospectionConfig',
      'ScopePolicyOptions',
      'AuthenticateHook',
      'TaskStore',
      'ResultStore',
      'Logger',
      'ServerTasksOptions',
    ]) {
      expect(named, name).toContain(name);
    }
  });

  it('(the check itself) reports a type an exported option names that no entry point exports', () => {
    mkdirSync(join(scratch, 'lib'));
    writeFileSync(join(scratch, 'index.d.ts'), "export type { Options } from './lib/options.js';\n");
    writeFileSync(join(scratch, 'lib/options.d.ts'), "import type { Store } from './store.js';\nexport interface Options {\n  store?: Store;\n}\n");
    writeFileSync(join(scratch, 'lib/store.d.ts'), 'export interface Store {\n  get(key: string): string;\n}\n');
    expect(unexportedReferences([join(scratch, 'index.d.ts')])).toEqual(['Store (named by Options)']);
  });
});

/** The entries and every module they re-export whole (`export * from './x.js'`): what those export, the entry does. */
function withStarTargets(entries: string[]): string[] {
  const all = new Set<string>();
  const add = (file: string) => {
    if (all.has(file) || !existsSync(file)) return;
    all.add(file);
    for (const m of read(file).matchAll(/export\s+\*\s+from\s+['"](\.[^'"]+)['"]/g)) add(relative(file, m[1]));
  };
  entries.forEach(add);
  return [...all];
}

function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function read(file: string): string {
  return withoutComments(readFileSync(file, 'utf8'));
}

const relative = (from: string, spec: string) => resolve(dirname(from), spec.replace(/\.js$/, '.d.ts'));

/** Every .d.ts the entries reach through relative imports and re-exports. */
function declarationGraph(entries: string[], seen = new Set<string>()): string[] {
  for (const entry of entries) {
    if (seen.has(entry) || !existsSync(entry)) continue;
    seen.add(entry);
    declarationGraph(
      [...read(entry).matchAll(/(?:from\s+|import\(\s*)['"](\.[^'"]+)['"]/g)].map(([, spec]) => relative(entry, spec)),
      seen,
    );
  }
  return [...seen];
}

/** `{ a, type b, c as d }` → [original, exported] pairs. */
function specifiers(list: string): Array<[string, string]> {
  return list
    .split(',')
    .map((part) => part.replace(/^\s*type\s+/, '').trim())
    .filter(Boolean)
    .map((part) => {
      const [original, alias] = part.split(/\s+as\s+/);
      return [original, alias ?? original];
    });
}

/** Where each name an entry exports is declared: `file#name`, following re-exports. */
function publicDeclarations(entries: string[]): Set<string> {
  const found = new Set<string>();
  const follow = (file: string, name: string, seen: Set<string>) => {
    const key = `${file}#${name}`;
    if (seen.has(key) || !existsSync(file)) return;
    seen.add(key);
    const code = read(file);
    if (new RegExp(`^(export\\s+)?(declare\\s+)?(abstract\\s+)?(interface|type|class|function|const|enum)\\s+${name}\\b`, 'm').test(code)) found.add(key);
    for (const m of code.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"](\.[^'"]+)['"]/g)) {
      for (const [original, exported] of specifiers(m[1])) if (exported === name) follow(relative(file, m[2]), original, seen);
    }
    // `import { X } …; export { X };`
    for (const m of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"](\.[^'"]+)['"]/g)) {
      for (const [original, local] of specifiers(m[1])) {
        if (local === name && new RegExp(`export\\s+(type\\s+)?\\{[^}]*\\b${name}\\b[^}]*\\}(?!\\s*from)`).test(code))
          follow(relative(file, m[2]), original, seen);
      }
    }
  };
  for (const entry of entries) for (const name of entryNames([entry])) follow(entry, name, new Set());
  return found;
}

/** The names the entries export, however declared (a re-export of another package's type included). */
function entryNames(entries: string[]): Set<string> {
  const names = new Set<string>();
  for (const entry of entries) {
    const code = read(entry);
    for (const m of code.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) for (const [, exported] of specifiers(m[1])) names.add(exported);
    for (const m of code.matchAll(/export\s+(?:declare\s+)?(?:abstract\s+)?(?:interface|type|class|function|const|enum)\s+(\w+)/g)) names.add(m[1]);
  }
  return names;
}

function publicNames(entries: string[]): string[] {
  return [...entryNames(entries)];
}

/**
 * Types that an exported declaration mentions, that some module exports (so a user could
 * mean to name them: a module-private helper type is not one) and no entry point does.
 * Read with regular expressions: a declaration runs from its keyword to the next one.
 */
function unexportedReferences(entries: string[]): string[] {
  const declarations = publicDeclarations(entries);
  const exportedNames = new Set([...[...declarations].map((key) => key.split('#')[1]), ...entryNames(entries)]);
  const exportedTypes = new Set<string>();
  const bodies: Array<{ name: string; body: string }> = [];
  for (const file of declarationGraph(entries)) {
    const code = read(file).replace(/^import .*$/gm, '');
    const starts = [...code.matchAll(/^(export\s+)?(?:declare\s+)?(?:abstract\s+)?(interface|type|class|function|const|enum)\s+(\w+)/gm)];
    starts.forEach((m, i) => {
      const [, exported, kind, name] = m;
      if (exported && kind !== 'function' && kind !== 'const') exportedTypes.add(name);
      if (declarations.has(`${file}#${name}`)) bodies.push({ name, body: code.slice(m.index, i + 1 < starts.length ? starts[i + 1].index : code.length) });
    });
  }
  const missing = new Map<string, Set<string>>();
  for (const { name, body } of bodies) {
    for (const [id] of body.matchAll(/\b[A-Z]\w*\b/g)) {
      if (id === name || !exportedTypes.has(id) || exportedNames.has(id)) continue;
      (missing.get(id) ?? missing.set(id, new Set()).get(id)!).add(name);
    }
  }
  return [...missing].map(([id, users]) => `${id} (named by ${[...users].sort().join(', ')})`).sort();
}
