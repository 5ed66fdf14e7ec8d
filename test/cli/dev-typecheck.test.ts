import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { DevTypeCheck, TypeCheckError } from '../../src/cli/dev/typecheck.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/** The repository's TypeScript (7.x), installed into a temp project as the project's own. */
const repoTypescript = fileURLToPath(new URL('../../node_modules/typescript', import.meta.url));

/** A tools module with one tool, `version`, that answers `label`; `prelude` goes above it (a type error, say). */
const toolsModule = (label: string, prelude = '') =>
  `${prelude}
import { suffix } from './suffix.js';
export default [{ name: 'version', description: 'which version serves', inputSchema: { type: 'object' }, handler: async () => ${JSON.stringify(label)} + suffix }];
`;

/** A project folder: package.json, a tsconfig (unless `tsconfig: false`), typescript in node_modules (unless `typescript: false`). */
function project(options: { tsconfig?: boolean; typescript?: boolean } = {}): string {
  const dir = tempDir('toolwright-dev-tsc-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', type: 'module' }));
  if (options.tsconfig !== false)
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', skipLibCheck: true } }));
  if (options.typescript !== false) {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(repoTypescript, join(dir, 'node_modules', 'typescript'), 'dir');
  }
  writeFileSync(join(dir, 'suffix.ts'), `export const suffix: string = '';\n`);
  writeFileSync(join(dir, 'tools.ts'), toolsModule('v1'));
  return dir;
}

async function startDev(dir: string, extra: string[] = [], tools = ['--tools', 'tools.ts']) {
  const dev = startBuiltCli(['dev', ...tools, '--port', '0', '--no-open', ...extra], { cwd: dir, env: auditEnv() });
  await dev.waitForStderr(/toolwright dev: watching/);
  const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
  const consoleUrl = /console on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
  const client = await ToolClient.connect({ url });
  const version = async () => (await client.callTool('version')).content[0]!;
  const count = (pattern: RegExp) => dev.stderr().match(new RegExp(pattern, 'g'))?.length ?? 0;
  const reloads = (pattern: RegExp, n: number) => expect.poll(() => count(pattern), { timeout: 30_000, interval: 25 }).toBe(n);
  return { dev, client, version, consoleUrl, reloads };
}

describe('toolwright dev: type checks with the project TypeScript', () => {
  it('refuses a reload with a type error (old tool serving, file:line:column in the terminal and the console), then applies the fix', async () => {
    const dir = project();
    const { dev, client, version, consoleUrl, reloads } = await startDev(dir);
    expect(dev.stderr()).toContain("each reload is type-checked with the project's TypeScript first");
    try {
      writeFileSync(join(dir, 'tools.ts'), toolsModule('v2', `const n: number = 'x';`));
      await reloads(/toolwright dev: reload failed/, 1);
      expect(dev.stderr()).toMatch(/still serving the last good version:\ntools\.ts:1:7: Type 'string' is not assignable to type 'number'\. \(TS2322\)/);
      expect(await version()).toEqual({ type: 'text', text: 'v1' });
      const token = new URL(consoleUrl).hash.replace('#token=', '');
      const status = await (await fetch(new URL('api/dev/reload', consoleUrl), { headers: { 'x-console-token': token } })).json();
      expect(status).toMatchObject({ reloads: 0, error: { message: expect.stringMatching(/^tools\.ts:1:7: Type 'string' is not assignable/) } });

      // A type error in a file the module imports is shown at its own place.
      writeFileSync(join(dir, 'tools.ts'), toolsModule('v3'));
      writeFileSync(join(dir, 'suffix.ts'), 'export const suffix: string = 42;\n');
      await reloads(/toolwright dev: reload failed/, 2);
      expect(dev.stderr()).toMatch(/suffix\.ts:1:14: Type 'number' is not assignable to type 'string'\. \(TS2322\)/);
      expect(await version()).toEqual({ type: 'text', text: 'v1' });

      writeFileSync(join(dir, 'suffix.ts'), `export const suffix: string = '!';\n`);
      await reloads(/toolwright dev: reloaded tools\.ts/, 1);
      expect(await version()).toEqual({ type: 'text', text: 'v3!' });
    } finally {
      await client.close();
    }
  }, 120_000);

  it('refuses a config reload that names a module with a type error, and applies it once the module is fixed', async () => {
    const dir = project();
    writeFileSync(join(dir, 'toolwright.config.yaml'), 'tools: [./tools.ts]\n');
    const extra = (prelude: string) =>
      `${prelude}\nexport default [{ name: 'extra', description: 'extra', inputSchema: { type: 'object' }, handler: async () => 'extra' }];\n`;
    writeFileSync(join(dir, 'extra.ts'), extra(`const n: number = 'x';`));
    const { dev, client, reloads } = await startDev(dir, [], []);
    try {
      writeFileSync(join(dir, 'toolwright.config.yaml'), 'tools: [./tools.ts, ./extra.ts]\n');
      await reloads(/toolwright dev: reload failed/, 1);
      expect(dev.stderr()).toMatch(/extra\.ts:1:7: Type 'string' is not assignable to type 'number'\. \(TS2322\)/);
      expect((await client.listTools({ refresh: true })).map((t) => t.name)).toEqual(['version']);

      writeFileSync(join(dir, 'extra.ts'), extra('const n: number = 1;'));
      writeFileSync(join(dir, 'toolwright.config.yaml'), 'tools: [./tools.ts, ./extra.ts]\n# fixed\n');
      await reloads(/toolwright dev: reloaded toolwright\.config\.yaml/, 1);
      expect((await client.listTools({ refresh: true })).map((t) => t.name).sort()).toEqual(['extra', 'version']);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('does not refuse a reload for type errors in files the module does not import', async () => {
    const dir = project();
    writeFileSync(join(dir, 'unrelated.ts'), `export const broken: number = 'not a number';\n`);
    const { client, version, reloads } = await startDev(dir);
    try {
      writeFileSync(join(dir, 'tools.ts'), toolsModule('v2'));
      await reloads(/toolwright dev: reloaded tools\.ts/, 1);
      expect(await version()).toEqual({ type: 'text', text: 'v2' });
    } finally {
      await client.close();
    }
  }, 120_000);

  it('checks a module with no tsconfig.json above it alone, with defaults', async () => {
    const dir = project({ tsconfig: false });
    const { dev, client, version, reloads } = await startDev(dir);
    try {
      writeFileSync(join(dir, 'tools.ts'), toolsModule('v2', 'const s: string = 5;'));
      await reloads(/toolwright dev: reload failed/, 1);
      expect(dev.stderr()).toMatch(/tools\.ts:1:7: Type 'number' is not assignable to type 'string'\. \(TS2322\)/);
      expect(await version()).toEqual({ type: 'text', text: 'v1' });
    } finally {
      await client.close();
    }
  }, 120_000);

  it('--no-typecheck applies a type-incorrect (but runnable) edit', async () => {
    const dir = project();
    const { dev, client, version, reloads } = await startDev(dir, ['--no-typecheck']);
    expect(dev.stderr()).not.toMatch(/type-checked|types are not checked/);
    try {
      writeFileSync(join(dir, 'tools.ts'), toolsModule('v2', `const n: number = 'x';`));
      await reloads(/toolwright dev: reloaded tools\.ts/, 1);
      expect(await version()).toEqual({ type: 'text', text: 'v2' });
      expect(dev.stderr()).not.toContain('reload failed');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('says once at start-up that types are not checked when the project has no typescript, and reloads unchecked', async () => {
    const dir = project({ typescript: false });
    const { dev, client, version, reloads } = await startDev(dir);
    expect(dev.stderr()).toMatch(/types are not checked \(tools\.ts\): no `typescript` is installed in the project/);
    try {
      writeFileSync(join(dir, 'tools.ts'), toolsModule('v2', `const n: number = 'x';`));
      await reloads(/toolwright dev: reloaded tools\.ts/, 1);
      expect(await version()).toEqual({ type: 'text', text: 'v2' });
      expect(dev.stderr().match(/types are not checked/g)).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('DevTypeCheck against a tsc that misbehaves', () => {
  /** A project whose `typescript` is a script standing in for tsc (a real child process, run as tsc is). */
  function fakeTsc(script: string): { dir: string; module: string; state: string } {
    const dir = tempDir('toolwright-dev-fake-tsc-');
    mkdirSync(join(dir, 'node_modules', 'typescript', 'bin'), { recursive: true });
    const bin = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
    writeFileSync(bin, `#!/usr/bin/env node\n${script}\n`);
    chmodSync(bin, 0o755);
    writeFileSync(join(dir, 'tools.ts'), 'export default [];\n');
    return { dir, module: join(dir, 'tools.ts'), state: join(dir, '.toolwright') };
  }

  it('applies the reload with a warning when the check runs past its bound', async () => {
    const { module, state } = fakeTsc('setTimeout(() => {}, 60_000);');
    const warnings: string[] = [];
    await new DevTypeCheck(state, (w) => warnings.push(w), 300).check(module, [module]);
    expect(warnings).toEqual(['the type check took over 0.3 s; applied unchecked']);
  });

  it('checks again without --incremental when this tsc refuses it, and still refuses a type error; tsc gets a minimal environment', async () => {
    const { dir, module, state } = fakeTsc(
      `if (process.argv.includes('--incremental')) { console.log("error TS5023: Unknown compiler option '--incremental'."); process.exit(1); }
console.log("tools.ts(1,16): error TS2322: Type 'string' is not assignable to type 'number'.\\n  with a second line");
require('node:fs').writeFileSync('env.json', JSON.stringify(Object.keys(process.env)));
process.exit(2);`,
    );
    const failure = new DevTypeCheck(state, () => {}).check(module, [module]);
    await expect(failure).rejects.toBeInstanceOf(TypeCheckError);
    await expect(failure).rejects.toThrow(`${module}:1:16: Type 'string' is not assignable to type 'number'.\n  with a second line (TS2322)`);
    const env = JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as string[];
    expect(env.filter((name) => !['PATH', 'TMPDIR', 'TEMP', 'TMP', 'SystemRoot'].includes(name))).toEqual([]);
  });
});
