import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The relative imports of one TypeScript module, as absolute paths of .ts (or .tsx) files:
 * static imports and re-exports (type-only ones too), side-effect imports,
 * dynamic `import()` and `typeof import()`. Package imports are left out.
 */
export function relativeImports(file: string, source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const specifiers = [
    // import … from '…', export … from '…' (a statement may span lines; it starts a line).
    ...code.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    // import '…' (for its side effects).
    ...code.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    // import('…'), in code or in a type.
    ...code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1]);
  const files = specifiers.filter((specifier) => specifier.startsWith('.')).map((specifier) => sourceOf(resolve(dirname(file), specifier)));
  return [...new Set(files)];
}

/** The source file an emitted `.js` path comes from: `x.ts`, or `x.tsx` when only that exists (the console's page). */
function sourceOf(path: string): string {
  if (!path.endsWith('.js')) return path;
  const ts = path.replace(/\.js$/, '.ts');
  const tsx = `${ts}x`;
  return !existsSync(ts) && existsSync(tsx) ? tsx : ts;
}

/** Every .ts and .tsx file under `dir`, its sub-folders included. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * Every circle of a module graph, one per strongly connected component (Tarjan):
 * the shortest circle through the component's first file by name, that file
 * repeated at the end (`a → b → a`).
 */
export function findImportCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;

  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);

  return components
    .filter((component) => component.length > 1 || (graph.get(component[0]) ?? []).includes(component[0]))
    .map((component) => shortestCircle(graph, new Set(component), [...component].sort()[0]))
    .sort((a, b) => a[0].localeCompare(b[0]));
}

/** Breadth first from `start` back to itself, inside one component. */
function shortestCircle(graph: Map<string, string[]>, component: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    for (const target of graph.get(node) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.push(at);
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
