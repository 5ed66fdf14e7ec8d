import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultInstall, type DefaultInstall } from '../helpers/default-install.js';
import { modernMeta } from '../helpers/wire.js';

// `npm install toolwright` into an empty project (issue 33): only the package's dependencies, none
// of the optional peer dependencies. The default features work; a backend used without its package
// stops start-up with one line naming the `npm install` that fixes it, never a failed call later.
let install: DefaultInstall;
beforeAll(() => {
  install = defaultInstall();
  return install.remove;
});

const OPTIONAL = ['better-sqlite3', 'pg', 'ioredis', 'rate-limiter-flexible', '@octokit/core', '@opentelemetry/sdk-node', 'tsx'];

function config(name: string, body: unknown): string {
  const file = join(install.work, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

/** A start-up refusal: exit 1, one line, the fix named, no stack trace and no absolute path. */
function expectRefusal(result: { code: number | null; stderr: string }, fix: string): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`\`npm install ${fix}\``);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toContain(install.pkg);
}

describe('a default install (no optional peer dependency)', () => {
  it('really lacks every optional package', () => {
    const resolveFromPackage = createRequire(join(install.pkg, 'dist', 'cli', 'main.js'));
    const found = OPTIONAL.filter((name) => {
      try {
        resolveFromPackage.resolve(name);
        return true;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
      }
    });
    expect(found).toEqual([]);
  });

  it('serves the default toolsets, records each answered call in .toolwright/audit.jsonl, and `toolwright audit` reads it', async () => {
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'calculate_sum', arguments: { a: 2, b: 3 }, _meta: modernMeta() } };
    const served = await install.cli(['serve', '--stdio'], { stdin: `${JSON.stringify(call)}\n` });
    const trail = join(install.work, '.toolwright', 'audit.jsonl');
    expect(served.stderr).toBe(`toolwright: state in ${join(install.work, '.toolwright')}; audit trail: ${trail}\n`);
    expect(served.code).toBe(0);
    expect(JSON.parse(served.stdout).result.structuredContent).toEqual({ sum: 5 });

    const listed = await install.cli(['audit', '--json']);
    expect(listed.code).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([expect.objectContaining({ id: 1, tool: 'calculate_sum', status: 'ok', requestId: 7, arguments: { a: 2, b: 3 } })]);
    const pruned = await install.cli(['audit', 'prune', '--older-than', '1d']);
    expect(pruned.code).toBe(1);
    expect(pruned.stderr).toMatch(/JSON-lines trail: it is rotated by size .* needs the SQLite trail \(npm install better-sqlite3\)/);
  });

  it('a SQLite trail named in the config: npm install better-sqlite3', async () => {
    expectRefusal(
      await install.cli(['serve', '--stdio', '--config', config('sqlite.json', { server: { audit: { sqlite: 'a.db' } }, toolsets: { math: {} } })]),
      'better-sqlite3',
    );
  });

  it('a SQLite task store named in the config: npm install better-sqlite3', async () => {
    const file = config('tasks.json', { server: { audit: false, tasks: { store: 'tasks.db' } }, toolsets: { math: {} } });
    const result = await install.cli(['serve', '--stdio', '--config', file]);
    expectRefusal(result, 'better-sqlite3');
    expect(result.stderr).toContain('the SQLite task store (tasks.store) needs the "better-sqlite3" package');
  });

  it('a PostgreSQL trail: npm install pg', async () => {
    const file = config('pg.json', { server: { audit: { postgres: 'postgres://u:secret@127.0.0.1:1/db' } }, toolsets: { math: {} } });
    const result = await install.cli(['serve', '--stdio', '--config', file]);
    expectRefusal(result, 'pg');
    expect(result.stderr).not.toContain('secret');
  });

  it('shared state in Redis: npm install ioredis', async () => {
    const file = config('redis.json', {
      server: { state: { redis: 'redis://127.0.0.1:1' }, requestStateSecret: 's'.repeat(32), audit: false },
      toolsets: { math: {} },
    });
    expectRefusal(await install.cli(['serve', '--stdio', '--config', file]), 'ioredis');
  });

  it('the github toolset: npm install @octokit/core', async () => {
    const file = config('github.json', { server: { audit: false }, toolsets: { github: { repos: ['octo/hello'] } } });
    expectRefusal(await install.cli(['serve', '--stdio', '--config', file]), '@octokit/core');
  });

  it('OpenTelemetry asked for by the environment: npm install @opentelemetry/sdk-node', async () => {
    const result = await install.cli(['serve', '--stdio'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' } });
    expectRefusal(result, '@opentelemetry/sdk-node');
    expect(result.stderr).toContain('OTEL_SDK_DISABLED=true');
  });

  it('a TypeScript tools module: npm install tsx (a .js module loads as it is)', async () => {
    const tool = "{ name: 'hello', description: 'd', inputSchema: { type: 'object' }, handler: () => 'hi' }";
    writeFileSync(join(install.work, 'tools.ts'), `export default [${tool}];\n`);
    expectRefusal(await install.cli(['serve', '--stdio', '--tools', 'tools.ts']), 'tsx');
    writeFileSync(join(install.work, 'tools.mjs'), `export default [${tool}];\n`);
    expect((await install.cli(['serve', '--stdio', '--tools', 'tools.mjs'])).code).toBe(0);
  });
});

describe('an install with ioredis but not rate-limiter-flexible', () => {
  let withRedis: DefaultInstall;
  beforeAll(() => {
    withRedis = defaultInstall(['ioredis']);
    return withRedis.remove;
  });

  it('shared state in Redis: npm install rate-limiter-flexible', async () => {
    const file = join(withRedis.work, 'redis.json');
    writeFileSync(
      file,
      JSON.stringify({ server: { state: { redis: 'redis://127.0.0.1:1' }, requestStateSecret: 's'.repeat(32), audit: false }, toolsets: { math: {} } }),
    );
    const result = await withRedis.cli(['serve', '--stdio', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('`npm install rate-limiter-flexible`');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
