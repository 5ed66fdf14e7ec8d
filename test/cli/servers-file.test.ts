import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { demoTools } from '../fixtures/cli/demo-tools.js';
import { tempDir } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';

const run = runCliCaptured;

const stdioFixture = fileURLToPath(new URL('../fixtures/stdio-server.ts', import.meta.url));

/** A stdio server (real toolwright) answering with ENV_PROBE, cwd and the header it was sent, for checking what the entry passed. */
function probeServer(dir: string): string {
  const file = join(dir, 'probe.ts');
  writeFileSync(
    file,
    `
    import { ToolServer } from ${JSON.stringify(fileURLToPath(new URL('../../src/server/server.ts', import.meta.url)))};
    import { serveStdio } from ${JSON.stringify(fileURLToPath(new URL('../../src/transports/stdio-server.ts', import.meta.url)))};
    const server = new ToolServer({ name: 'probe' });
    server.tools.add({ name: 'probe', description: 'env and cwd', inputSchema: { type: 'object' },
      handler: () => JSON.stringify({ probe: process.env.ENV_PROBE ?? null, cwd: process.cwd() }) });
    serveStdio(server);
  `,
  );
  return file;
}

let http: HttpServerHandle;

beforeAll(async () => {
  http = await serveHttp(new ToolServer({ name: 'http', logger: createLogger('silent'), tools: demoTools }), { port: 0 });
});
afterAll(() => http.close());

function serversFile(dir: string, servers: unknown, name = 'servers.json'): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(servers));
  return file;
}

describe('named servers from a servers file (@name)', () => {
  it('a stdio entry: command, args, env and a cwd relative to the file; -e overrides its env', async () => {
    const dir = tempDir('tw-servers-');
    mkdirSync(join(dir, 'work'));
    const file = serversFile(dir, {
      mcpServers: { probe: { command: process.execPath, args: tsProgram(probeServer(dir)), env: { ENV_PROBE: 'from file' }, cwd: 'work' } },
    });
    const res = await run('call', '@probe', 'probe', '--json', '--servers-file', file);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(JSON.parse(res.stdout).content[0].text)).toEqual({ probe: 'from file', cwd: realpathSync(join(dir, 'work')) });
    const overridden = await run('call', '@probe', 'probe', '--json', '--servers-file', file, '-e', 'ENV_PROBE=from flag');
    expect(JSON.parse(JSON.parse(overridden.stdout).content[0].text).probe).toBe('from flag');
  });

  it('an HTTP entry ("type": "http", and without a type), for list and call', async () => {
    const dir = tempDir('tw-servers-');
    const file = serversFile(dir, { mcpServers: { remote: { type: 'http', url: http.url, headers: { 'X-Team': 'a' } }, plain: { url: http.url } } });
    const listed = await run('list', '@remote', '--servers-file', file, '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toContain('echo');
    const called = await run('call', '@plain', 'echo', 'text=hi', '--servers-file', file);
    expect(called.code).toBe(0);
    expect(called.stdout).toContain('hi');
    const refused = await run('list', '@remote', '--servers-file', file, '-e', 'A=1');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('-e applies to stdio servers only');
  });

  it('reads VS Code\'s "servers" key too', async () => {
    const dir = tempDir('tw-servers-');
    const file = serversFile(dir, { servers: { s: { type: 'stdio', command: process.execPath, args: tsProgram(stdioFixture) } } });
    const res = await run('call', '@s', 'echo', 'text=vscode', '--servers-file', file);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('vscode');
  });

  it('checks only the named entry: a disabled, unusual or broken other entry does not matter', async () => {
    const dir = tempDir('tw-servers-');
    const file = serversFile(dir, {
      mcpServers: {
        off: { command: 'x', disabled: true },
        later: { command: 'npx', args: ['-y', 'something'], env: { TOKEN: '${TW_TEST_UNSET_TOKEN}' } },
        broken: { command: 'x', envFile: '.env', args: [3] },
        odd: 'not even an object',
        good: { url: http.url },
      },
    });
    const res = await run('list', '@good', '--servers-file', file, '--json');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).tools.map((t: { name: string }) => t.name)).toContain('echo');
    // The named one is still checked whole.
    const broken = await run('list', '@broken', '--servers-file', file);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('"mcpServers.broken.envFile" must be not a key toolwright reads');
    const off = await run('list', '@off', '--servers-file', file);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('@off is marked "disabled": true in');
  });

  it('expands ${VAR} and ${VAR:-default} from the environment in command, args, env, url and headers, once, without a shell', async () => {
    const dir = tempDir('tw-servers-');
    const vars = {
      TW_TEST_NODE: process.execPath,
      TW_TEST_PROBE: tsProgram(probeServer(dir)).join(' '),
      TW_TEST_VALUE: '${HOME} $(id) `id` $TW_TEST_NODE',
      TW_TEST_URL: http.url,
      TW_TEST_EMPTY: '',
      TW_TEST_NEWLINE: 'a\r\nInjected: yes',
    };
    Object.assign(process.env, vars);
    try {
      const file = serversFile(dir, {
        mcpServers: {
          probe: {
            command: '${TW_TEST_NODE}',
            args: ['${TW_TEST_PROBE}'],
            env: { ENV_PROBE: '[${TW_TEST_VALUE}][${TW_TEST_UNSET:-fall back}][${TW_TEST_EMPTY:-not used}]' },
          },
          remote: { url: '${TW_TEST_URL}', headers: { 'X-Team': '${TW_TEST_UNSET:-team a}' } },
          injected: { url: '${TW_TEST_URL}', headers: { 'X-Team': '${TW_TEST_NEWLINE}' } },
        },
      });
      const res = await run('call', '@probe', 'probe', '--json', '--servers-file', file);
      expect(res.stderr).toBe('');
      // The value of a variable is not expanded again, nor run through a shell; an empty one is used as set.
      expect(JSON.parse(JSON.parse(res.stdout).content[0].text).probe).toBe('[${HOME} $(id) `id` $TW_TEST_NODE][fall back][]');
      const listed = await run('list', '@remote', '--servers-file', file, '--json');
      expect(listed.code).toBe(0);
      const injected = await run('list', '@injected', '--servers-file', file);
      expect(injected.code).toBe(1);
      expect(injected.stderr).toContain('"mcpServers.injected.headers.X-Team" must be a value without line breaks');
    } finally {
      for (const name of Object.keys(vars)) delete process.env[name];
    }
  });

  it("sends a variable's value where the entry says: the URL's host and path, and its headers (what SECURITY.md says a servers file is trusted with)", async () => {
    const seen: Array<{ authorization?: string; path?: string }> = [];
    const listening = await serveHttp(new ToolServer({ name: 'collector', logger: createLogger('silent'), tools: demoTools }), {
      port: 0,
      authenticate: (req) => {
        seen.push({ authorization: req.headers.authorization, path: req.url });
        return 'anyone';
      },
    });
    process.env.TW_TEST_SECRET = 'twk_from-the-environment-0123456789';
    try {
      const dir = tempDir('tw-servers-');
      const file = serversFile(dir, {
        mcpServers: { leak: { url: `${listening.url}?k=\${TW_TEST_SECRET}`, headers: { Authorization: 'Bearer ${TW_TEST_SECRET}' } } },
      });
      expect((await run('list', '@leak', '--servers-file', file)).code).toBe(0);
      expect(seen[0]).toEqual({ authorization: 'Bearer twk_from-the-environment-0123456789', path: '/mcp?k=twk_from-the-environment-0123456789' });
    } finally {
      delete process.env.TW_TEST_SECRET;
      await listening.close();
    }
  });

  it('refuses a bad file with the file and the key named', async () => {
    const dir = tempDir('tw-servers-');
    const cases: [unknown, string][] = [
      [{ mcpServers: { a: { command: 'x', args: ['ok', 3] } } }, '"mcpServers.a.args[1]" must be a string'],
      [{ mcpServers: { a: { command: 'x', env: { 'BAD-NAME': 'v' } } } }, '"mcpServers.a.env.BAD-NAME" must be named by a variable name'],
      [{ mcpServers: { a: { type: 'sse', url: 'http://127.0.0.1:1/sse' } } }, '"mcpServers.a.type" must be "stdio" or "http": "sse"'],
      [{ mcpServers: { a: { type: 'websocket', url: 'ws://x' } } }, '"mcpServers.a.type" must be "stdio", "http" or "streamable-http"'],
      [{ mcpServers: { a: { url: 'file:///etc/passwd' } } }, '"mcpServers.a.url" must be an http:// or https:// URL'],
      [{ mcpServers: { a: { command: 'x', url: 'http://x' } } }, 'either a "command" (stdio) or a "url" (HTTP), not both'],
      [{ mcpServers: { a: { command: 'x', envFile: '.env' } } }, '"mcpServers.a.envFile" must be not a key toolwright reads'],
      [
        { mcpServers: { a: { url: 'http://x/', headers: { Authorization: 'Bearer ${TW_TEST_UNSET_TOKEN}' } } } },
        '"mcpServers.a.headers.Authorization": ${TW_TEST_UNSET_TOKEN} is not set in the environment',
      ],
      [{ mcpServers: { a: { command: 'x', args: ['${input:token}'] } } }, '"mcpServers.a.args[0]": ${input:token} is not a variable toolwright expands'],
      [{ mcpServers: { a: { command: 'x', cwd: '${HOME}' } } }, '"mcpServers.a.cwd" must be a plain value'],
      [
        { mcpServers: { a: { command: '${TW_TEST_UNSET_TOKEN:-}' } } },
        '"mcpServers.a.command" must be a non-empty string (${TW_TEST_UNSET_TOKEN:-} expands to nothing)',
      ],
      [{ mcpServers: { a: { url: 'http://x/', headers: { A: 'x\r\nB: y' } } } }, '"mcpServers.a.headers.A" must be a value without line breaks'],
      [{ mcpServers: [] }, '"mcpServers" must be an object of servers by name'],
      [{ other: {} }, 'must be a JSON object with an "mcpServers" object'],
    ];
    for (const [content, message] of cases) {
      const file = serversFile(dir, content);
      const res = await run('list', '@a', '--servers-file', file);
      expect(res.code, message).toBe(1);
      expect(res.stderr, message).toContain(`servers.json: `);
      expect(res.stderr, message).toContain(message);
    }
    writeFileSync(join(dir, 'broken.json'), '{ "mcpServers": ');
    expect((await run('list', '@a', '--servers-file', join(dir, 'broken.json'))).stderr).toContain('broken.json: not valid JSON');
    const file = serversFile(dir, { mcpServers: { one: { url: http.url }, two: { url: http.url } } });
    const unknown = await run('list', '@three', '--servers-file', file);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no server named "three"');
    expect(unknown.stderr).toContain('it has: "one", "two"');
    expect((await run('list', '@one', '--servers-file', join(dir, 'missing.json'))).stderr).toContain('--servers-file: no such file');
    expect((await run('list', http.url, '--servers-file', file)).stderr).toContain('--servers-file applies to a named server');
  });

  it('without --servers-file: ./.mcp.json first, then ~/.config/toolwright/servers.json (the real CLI, run in that directory)', async () => {
    const dir = tempDir('tw-servers-');
    const project = join(dir, 'project');
    const config = join(dir, 'config');
    mkdirSync(project);
    mkdirSync(join(config, 'toolwright'), { recursive: true });
    serversFile(project, { mcpServers: { both: { url: http.url }, offHere: { url: 'http://127.0.0.1:1/mcp', disabled: true } } }, '.mcp.json');
    serversFile(join(config, 'toolwright'), {
      mcpServers: { both: { url: 'http://127.0.0.1:1/mcp' }, userOnly: { url: http.url }, offHere: { url: http.url } },
    });
    const cli = async (...argv: string[]) => {
      const child = spawn(process.execPath, [fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url)), ...argv], {
        cwd: project,
        env: { ...process.env, XDG_CONFIG_HOME: config, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      const [code] = await once(child, 'close');
      return { code, out, err };
    };
    const [fromProject, fromUser, skipped] = await Promise.all([
      cli('call', '@both', 'echo', 'text=project'),
      cli('call', '@userOnly', 'echo', 'text=user'),
      cli('call', '@offHere', 'echo', 'text=enabled elsewhere'),
    ]);
    // A disabled entry is skipped with a note; the next file's entry is used.
    expect(skipped.code).toBe(0);
    expect(skipped.out).toContain('enabled elsewhere');
    expect(skipped.err).toContain('toolwright: note: @offHere is disabled in');
    expect(fromProject.err).toBe('');
    expect(fromProject.out).toContain('project');
    expect(fromUser.code).toBe(0);
    expect(fromUser.out).toContain('user');
  });
});
