import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The published type declarations (npm test builds dist/ first): what a TypeScript user of the
// package compiles against. Internals are marked @internal and stripped (tsconfig.build.json).
const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const ENTRIES = ['index', 'http', 'client', 'testing', 'toolsets', 'config'];
/** What transports must not need, and no user should see: the protocol engine and its per-client state. */
const INTERNAL = /\b(Dispatcher|dispatcher|DispatcherOptions|Peer|peer|MessageStreamSession|InflightRequests|Connection)\b/;

const scratch = mkdtempSync(join(tmpdir(), 'toolwright-dts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the published type declarations', () => {
  it('name no internal of the server (dispatcher, Peer, the connection class) in any file an entry point reaches', () => {
    const files = declarationGraph(ENTRIES.map((e) => `${root}dist/${e}.d.ts`));
    expect(files.length).toBeGreaterThan(ENTRIES.length);
    const leaks = files.flatMap((file) => {
      const code = withoutComments(readFileSync(file, 'utf8'));
      return code
        .split('\n')
        .filter((line) => INTERNAL.test(line))
        .map((line) => `${file.slice(root.length)}: ${line.trim()}`);
    });
    expect(leaks).toEqual([]);
  });

  it('compile for a strict user with skipLibCheck off: stripping left no dangling name, the connection API is typed, server.dispatcher is not there', async () => {
    // The package by name, as an installed dependency resolves it (its "exports" included).
    mkdirSync(join(scratch, 'node_modules'));
    symlinkSync(root, join(scratch, 'node_modules', 'toolwright'), 'dir');
    writeFileSync(
      join(scratch, 'use.ts'),
      `
      import { ToolServer, type ServerConnection, type Reply, type ConnectOptions } from 'toolwright';
      import { createHttpHandler, type HttpHandler } from 'toolwright/http';
      import { createInMemoryPair } from 'toolwright/testing';
      import { ToolClient } from 'toolwright/client';
      import * as toolsets from 'toolwright/toolsets';
      import * as config from 'toolwright/config';
      const server = new ToolServer();
      const options: ConnectOptions = { transport: 'websocket', send: (message: string) => void message, caller: 'alice' };
      const connection: ServerConnection = server.connect(options);
      const reply: Promise<Reply | undefined> | undefined = connection.receive('{}', { messageBytes: 2 });
      const handler: HttpHandler = createHttpHandler(server, { path: '/mcp' }); // synchronous from toolwright/http
      // @ts-expect-error the protocol engine is not part of the API
      server.dispatcher;
      void [reply, handler.handle, handler.fetch, handler.close, createInMemoryPair, ToolClient, toolsets, config];
    `,
    );
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [`${root}node_modules/@types`],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = `${root}node_modules/typescript/bin/tsc`;
    const result = await run(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json')], { cwd: scratch }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    expect(result).toBe('');
  }, 60_000);
});

/** Every .d.ts an entry's declarations reach through relative imports and re-exports. */
function declarationGraph(entries: string[], seen = new Set<string>()): string[] {
  for (const entry of entries) {
    if (seen.has(entry) || !existsSync(entry)) continue;
    seen.add(entry);
    const text = readFileSync(entry, 'utf8');
    const next = [...text.matchAll(/(?:from\s+|import\(\s*)['"](\.[^'"]+)['"]/g)].map(([, spec]) => resolve(dirname(entry), spec.replace(/\.js$/, '.d.ts')));
    declarationGraph(next, seen);
  }
  return [...seen];
}

function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}
