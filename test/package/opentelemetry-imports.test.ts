import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 23: the library calls OpenTelemetry through `@opentelemetry/api`
 * only; the Node SDK is loaded by `toolwright serve` alone, by a dynamic
 * import, and only when the OTEL_ environment asks for it.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('OpenTelemetry packages in src/', () => {
  const uses = sourceFiles(root).flatMap((file) => {
    const code = readFileSync(file, 'utf8');
    const statics = [...code.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"](@opentelemetry\/[^'"]+)['"]/gm)].map((m) => ({
      file: relative(root, file),
      spec: m[1],
      dynamic: false,
    }));
    const dynamics = [...code.matchAll(/\bimport\(\s*['"](@opentelemetry\/[^'"]+)['"]\s*\)/g)].map((m) => ({
      file: relative(root, file),
      spec: m[1],
      dynamic: true,
    }));
    return [...statics, ...dynamics];
  });

  it('imports only @opentelemetry/api statically', () => {
    expect(uses.filter((u) => !u.dynamic && u.spec !== '@opentelemetry/api')).toEqual([]);
    expect(uses.some((u) => u.spec === '@opentelemetry/api')).toBe(true);
  });

  it('loads the Node SDK only from the serve bootstrap, dynamically', () => {
    expect(uses.filter((u) => u.dynamic)).toEqual([{ file: join('cli', 'otel.ts'), spec: '@opentelemetry/sdk-node', dynamic: true }]);
  });
});
