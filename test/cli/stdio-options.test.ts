import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { demoTools } from '../fixtures/cli/demo-tools.js';
import { tempDir } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';

const run = runCliCaptured;

/** A real toolwright stdio server whose one tool answers with its environment variable ENV_PROBE and its working directory. */
const probeServer = (dir: string) => {
  const file = join(dir, 'probe-server.ts');
  writeFileSync(
    file,
    `
    import { ToolServer } from ${JSON.stringify(new URL('../../src/server/server.ts', import.meta.url).pathname)};
    import { serveStdio } from ${JSON.stringify(new URL('../../src/transports/stdio-server.ts', import.meta.url).pathname)};
    const server = new ToolServer({ name: 'probe' });
    server.tools.add({ name: 'probe', description: 'env and cwd', inputSchema: { type: 'object' },
      handler: () => JSON.stringify({ probe: process.env.ENV_PROBE ?? null, other: process.env.OTHER ?? null, cwd: process.cwd() }) });
    serveStdio(server);
  `,
  );
  return [process.execPath, ...tsProgram(file)];
};

let http: HttpServerHandle;
beforeAll(async () => {
  http = await serveHttp(new ToolServer({ name: 'http', logger: createLogger('silent'), tools: demoTools }), { port: 0 });
});
afterAll(() => http.close());

describe('-e KEY=VAL and --cwd for stdio servers', () => {
  it('the server gets the variables and the working directory', async () => {
    const dir = tempDir('tw-stdio-opts-');
    const work = join(dir, 'work');
    mkdirSync(work);
    const { code, stdout, stderr } = await run(
      'call',
      'probe',
      '-e',
      'ENV_PROBE=a=b c',
      '--env',
      'OTHER=2',
      '--cwd',
      work,
      '--json',
      '--',
      ...probeServer(dir),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const seen = JSON.parse(JSON.parse(stdout).content[0].text);
    expect(seen).toEqual({ probe: 'a=b c', other: '2', cwd: realpathSync(work) });
  });

  it('refuses an invalid name, a missing directory, and either option with a URL', async () => {
    for (const bad of ['1X=1', 'A-B=1', 'NOEQUALS', '=v']) {
      const { code, stderr } = await run('list', '-e', bad, '--', process.execPath, '-e', '');
      expect(code).toBe(1);
      expect(stderr).toContain('-e expects KEY=VALUE');
    }
    const missing = await run('list', '--cwd', '/nonexistent/dir/x', '--', process.execPath, '-e', '');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--cwd: no such directory');
    const withUrl = await run('list', http.url, '-e', 'A=1');
    expect(withUrl.code).toBe(1);
    expect(withUrl.stderr).toContain('-e applies to stdio servers only');
    const cwdUrl = await run('call', http.url, 'echo', 'text=x', '--cwd', '.');
    expect(cwdUrl.code).toBe(1);
    expect(cwdUrl.stderr).toContain('--cwd applies to stdio servers only');
  });
});

describe("the stdio server's stderr, shown when it fails", () => {
  it('a server that exits at once: its last lines, escapes stripped, next to the error', async () => {
    const script =
      'for (let i = 1; i <= 30; i++) process.stderr.write("line " + i + "\\n"); process.stderr.write("\\x1b[31mfatal:\\x1b[0m no config\\x07\\n"); process.exit(1)';
    const { code, stderr } = await run('list', '--', process.execPath, '-e', script);
    expect(code).toBe(2);
    expect(stderr).toContain('connection failed: the server process exited with code 1');
    expect(stderr).toContain("the server's stderr (last 20 lines):\n");
    expect(stderr).toContain('  fatal: no config\n');
    expect(stderr).toContain('  line 12\n');
    expect(stderr).not.toContain('line 11\n');
    expect(stderr).not.toMatch(/[\x1b\x07]/);
    expect(stderr).not.toContain('--verbose');
  });

  it('a server that never answers: shown with the connect timeout', async () => {
    // A shell, not Node: it has written its line long before the timeout even on a loaded machine
    // (a Node child could still be starting when 500 ms are up).
    const script = "echo 'waiting for a database that is not there' >&2; exec sleep 60";
    const { code, stderr } = await run('list', '--connect-timeout', '1000', '--', '/bin/sh', '-c', script);
    expect(code).toBe(2);
    expect(stderr).toContain('--connect-timeout gives it longer');
    expect(stderr).toContain('  waiting for a database that is not there\n');
  });

  it('bounded: a server that writes megabytes shows at most 4 KiB of it', async () => {
    const script = 'process.stderr.write("x".repeat(3 * 1024 * 1024) + "\\nthe end\\n", () => process.exit(3))';
    const { code, stderr } = await run('list', '--', process.execPath, '-e', script);
    expect(code).toBe(2);
    expect(stderr).toContain('  the end\n');
    expect(stderr.length).toBeLessThan(5 * 1024);
  });

  it('a healthy server: its stderr is not shown', async () => {
    const { code, stderr } = await run(
      'call',
      'echo',
      'text=hi',
      '--',
      process.execPath,
      ...tsProgram(new URL('../fixtures/stdio-server.ts', import.meta.url).pathname),
    );
    expect(code).toBe(0);
    expect(stderr).not.toContain('a careless debug print');
  });
});
