import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

// The published build: tsc's output bundled by scripts/bundle.mjs (npm test builds first).
// These run real child processes on dist/, the way users and `npm start` load it.
const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string };

describe('the built package', () => {
  it('runs the CLI from dist/ (files are found from the package root, whatever chunk the code landed in)', async () => {
    const { stdout } = await run(process.execPath, [`${root}dist/cli/main.js`, '--version']);
    expect(stdout.trim()).toBe(version);
  });

  it('runs the CLI as an executable file, the way `npx toolwright` and the bin link start it', async () => {
    const { stdout } = await run(`${root}dist/cli/main.js`, ['--version']);
    expect(stdout.trim()).toBe(version);
  });

  it('loads every entry point, and they share one copy of each class', async () => {
    const script = `
      const tw = await import(${JSON.stringify(`${root}dist/index.js`)});
      const { mathTools } = await import(${JSON.stringify(`${root}dist/toolsets.js`)});
      const { createInMemoryPair } = await import(${JSON.stringify(`${root}dist/testing.js`)});
      const client = await import(${JSON.stringify(`${root}dist/client.js`)});
      const config = await import(${JSON.stringify(`${root}dist/config.js`)});
      const server = new tw.ToolServer({ name: 'pkg', version: '1', audit: false, tools: mathTools() });
      const pair = await createInMemoryPair(server);
      // A toolset throws ToolError from its own entry point; the server (another entry) must
      // recognise it and answer isError with the tool's message, not an internal error.
      const bad = await pair.client.callTool('calculate', { expression: '2 +' });
      const good = await pair.client.callTool('calculate', { expression: '6 * 7' });
      await pair.close();
      console.log(JSON.stringify({
        bad: bad.isError === true && /Cannot evaluate/.test(bad.content[0].text),
        good: good.content[0].text,
        client: typeof client.ToolClient, config: Object.keys(config).length > 0,
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env } });
    expect(JSON.parse(stdout)).toEqual({ bad: true, good: '42', client: 'function', config: true });
  });

  it('publishes types that give a plain-JSON-Schema tool typed arguments (json-schema-to-ts comes as a dependency)', async () => {
    // A consumer's own project, type-checked against dist/*.d.ts the way an editor would after `npm install toolwright`.
    const dir = tempDir('tw-consumer-');
    writeFileSync(
      `${dir}/consumer.ts`,
      `
      import { defineTool, ToolServer, type Tool } from ${JSON.stringify(`${root}dist/index.js`)};
      import { mathTools } from ${JSON.stringify(`${root}dist/toolsets.js`)};
      const forecast = defineTool({
        name: 'forecast',
        description: 'd',
        inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
        handler: ({ city, days }) => {
          const name: string = city;
          // @ts-expect-error days may be absent
          const count: number = days;
          return name + count;
        },
      });
      const tools: Tool[] = [forecast, ...mathTools()];
      export const server = new ToolServer({ tools });
    `,
    );
    writeFileSync(
      `${dir}/tsconfig.json`,
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          typeRoots: [`${root}node_modules/@types`],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const checked = await run(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${dir}/tsconfig.json`]).then(
      () => 'no errors',
      (err: { stdout: string }) => err.stdout,
    );
    expect(checked).toBe('no errors');
  });

  it('keeps the server core in few files, and the client free of server code', () => {
    // Node 20 loads an ES module graph file by file (~1 ms each at start-up); scripts/bundle.mjs
    // makes the core one chunk. The client entry must not pull the server in.
    const index = staticGraph(`${root}dist/index.js`);
    const client = staticGraph(`${root}dist/client.js`);
    expect(index.length).toBeLessThanOrEqual(3);
    expect(index.some((file) => readFileSync(file, 'utf8').includes('var ToolServer = class'))).toBe(true);
    expect(client.filter((file) => /var (ToolServer|SqliteAuditSink|CallPipeline) = class/.test(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('serves the client core as toolwright/client/core, and to bundlers under "browser" as one file without Node built-ins', async () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(pkg.exports['./client/core'].browser).toBe('./dist/client-core.js');
    expect(pkg.exports['./client'].browser).toBe('./dist/client-core.js');
    expect(pkg.exports['./client/core'].default).toBe('./dist/client/core.js');
    const imported = [
      ...readFileSync(`${root}dist/client-core.js`, 'utf8').matchAll(/^import\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"|\bimport\("([^"]+)"\)/gm),
    ].map((m) => m[1] ?? m[2] ?? m[3]);
    expect(imported.filter((spec) => spec.startsWith('node:') || spec.startsWith('.'))).toEqual([]); // one file, no built-ins
    const script = `
      const core = await import('toolwright/client/core');
      // Before toolwright/client is loaded: the core alone starts no process.
      let refused = '';
      try { await core.ToolClient.connect({ command: process.execPath }); } catch (err) { refused = err.message; }
      const full = await import('toolwright/client');
      console.log(JSON.stringify({
        core: ['ToolClient', 'HttpClientTransport', 'OAuthClient', 'MemoryTokenStore'].filter((name) => typeof core[name] === 'function'),
        coreHasNode: ['StdioClientTransport', 'FileTokenStore', 'LoopbackRedirect', 'openBrowser', 'defaultConfigDir'].filter((name) => name in core),
        full: ['ToolClient', 'HttpClientTransport', 'StdioClientTransport', 'FileTokenStore', 'LoopbackRedirect', 'openBrowser', 'defaultConfigDir'].filter((name) => typeof full[name] === 'function'),
        refused,
        // On Node both entries share one copy of each class: an error from one is an instance of the other's.
        shared: core.McpRpcError === full.McpRpcError && core.ToolClient === full.ToolClient,
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    const seen = JSON.parse(stdout) as { core: string[]; coreHasNode: string[]; full: string[]; refused: string; shared: boolean };
    expect(seen.shared).toBe(true);
    expect(seen.core).toEqual(['ToolClient', 'HttpClientTransport', 'OAuthClient', 'MemoryTokenStore']);
    expect(seen.coreHasNode).toEqual([]);
    expect(seen.full).toHaveLength(7);
    expect(seen.refused).toMatch(/needs Node: import ToolClient from 'toolwright\/client'/);
  });
});

/** The files an ES module loads through static imports (dynamic `import()` excluded). */
function staticGraph(entry: string, seen = new Set<string>()): string[] {
  if (seen.has(entry)) return [...seen];
  seen.add(entry);
  for (const [, from, bare] of readFileSync(entry, 'utf8').matchAll(/^import\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"/gm)) {
    const spec = from ?? bare;
    if (spec.startsWith('.')) staticGraph(resolve(dirname(entry), spec), seen);
  }
  return [...seen];
}
