import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The published type declarations, compiled the way a strict project compiles them: with
// `skipLibCheck: false` and no @types package but Node's. toolwright is copied (not linked) into
// the project's node_modules, so a type it references resolves from there as it would after
// `npm install toolwright`, and not from this checkout's devDependencies (@types/better-sqlite3…).
const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; exports: Record<string, unknown> };
const project = mkdtempSync(join(tmpdir(), 'toolwright-consumer-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Every public entry point, as a user imports it. */
const ENTRY_POINTS = [
  'toolwright',
  'toolwright/client',
  'toolwright/client/core',
  'toolwright/testing',
  'toolwright/toolsets',
  'toolwright/config',
  'toolwright/http',
  'toolwright/middleware',
  'toolwright/gateway',
];

function installToolwright(): void {
  const modules = join(project, 'node_modules');
  const self = join(modules, 'toolwright');
  mkdirSync(self, { recursive: true });
  cpSync(join(root, 'package.json'), join(self, 'package.json'));
  // The declarations are all a type check reads.
  cpSync(join(root, 'dist'), join(self, 'dist'), { recursive: true, filter: (from) => statSync(from).isDirectory() || from.endsWith('.d.ts') });
  // toolwright's runtime dependencies, as npm would install them beside it (their own types included).
  for (const name of [...Object.keys(pkg.dependencies), '@types/node']) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(project, 'consumer.ts'),
    ENTRY_POINTS.map((entry, i) => `import * as entry${i} from '${entry}';\n`).join('') +
      `export const entries = [${ENTRY_POINTS.map((_, i) => `entry${i}`).join(', ')}];\n`,
  );
}

describe('the published type declarations', () => {
  it('names every public entry point the package exports', () => {
    const exported = Object.keys(pkg.exports)
      .filter((key) => !key.endsWith('.json'))
      .map((key) => (key === '.' ? 'toolwright' : `toolwright/${key.slice(2)}`));
    expect([...ENTRY_POINTS].sort()).toEqual(exported.sort());
  });

  it('compile in a project with skipLibCheck off and only @types/node (no TS7016 for a driver type)', async () => {
    installToolwright();
    // TypeScript 7's tsc (the native compiler) behind its node launcher.
    const result = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(project, 'tsconfig.json')], { cwd: project }).then(
      () => '',
      (err: { stdout?: string; stderr?: string; message: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}` || err.message,
    );
    expect(result).toBe('');
  }, 120_000);
});
