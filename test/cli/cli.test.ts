import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoTools } from '../fixtures/cli/demo-tools.js';
import { runCliCaptured } from '../helpers/cli.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { killAndReap } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI itself (built), started the way a stdio client would start it (from any directory). */
const cliCommand = [process.execPath, `${root}dist/cli/main.js`];

const run = runCliCaptured;

let http: HttpServerHandle;
beforeAll(async () => {
  const server = new ToolServer({ name: 'cli-test', logger: createLogger('silent'), tools: demoTools });
  http = await serveHttp(server, { port: 0 });
});
afterAll(() => http.close());

describe('toolwright list', () => {
  it('prints a table of the tools with their parameters and a count', async () => {
    const { code, stdout } = await run('list', http.url);
    expect(code).toBe(0);
    // Not a terminal here: no colour, the default width of 100 columns.
    expect(stdout).toContain(
      [
        'TOOL              DESCRIPTION',
        'calculate_sum     Calculate sum',
        '                  Adds two numbers and returns their sum. Use it for a single addition. No side',
        '                  effects.',
        '                  params: a: number, b: number',
        '                  read-only · structured output',
      ].join('\n'),
    );
    expect(stdout).toContain('params: timezone?: string');
    expect(stdout).toMatch(/\n\n3 tools\n$/);
    expect(stdout).not.toContain('\x1b[');
  });

  it('prints JSON with --json, in the era asked for', async () => {
    const { code, stdout } = await run('list', http.url, '--json', '--era', 'legacy');
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout);
    expect(parsed.era).toBe('legacy');
    expect(parsed.tools.map((t: { name: string }) => t.name)).toEqual(['calculate_sum', 'get_current_time', 'echo']);
  });

  it('lists a stdio server given after -- (the CLI serving itself)', async () => {
    // A JavaScript module: loading TypeScript (through tsx, ~0.5 CPU-s a start) is tested below, not here.
    const { code, stdout } = await run('list', '--', ...cliCommand, 'serve', '--tools', `${root}test/fixtures/cli/tools.mjs`);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^TOOL +DESCRIPTION\nshout +Upper-cases text\n/);
  });
});

describe('toolwright call', () => {
  it('coerces key=value by the input schema and prints the result', async () => {
    const { code, stdout } = await run('call', http.url, 'calculate_sum', 'a=2', 'b=0.5');
    expect(code).toBe(0);
    // The text says it all: the structured {"sum": 2.5} is not repeated (--structured shows it).
    expect(stdout).toBe('2.5\n');
  });

  it('keeps string parameters as strings', async () => {
    const { stdout } = await run('call', http.url, 'echo', 'text=42');
    expect(stdout).toBe('42\n');
  });

  it('exits 3 and prints to stderr when the tool reports an error', async () => {
    const { code, stdout, stderr } = await run('call', http.url, 'get_current_time', 'timezone=Mars/Olympus');
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/Unknown time zone "Mars\/Olympus"/);
  });

  it('prints the raw result with --json, with --args merged under key=value', async () => {
    const { code, stdout } = await run('call', http.url, 'calculate_sum', '--args', '{"a": 1, "b": 1}', 'b=4', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).structuredContent).toEqual({ sum: 5 });
  });

  it("takes the arguments as --json '{…}' too, and then answers in JSON", async () => {
    const { code, stdout } = await run('call', http.url, 'calculate_sum', '--json', '{"a":4,"b":5}');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).structuredContent).toEqual({ sum: 9 });
  });

  it('keeps an operand that follows a bare --json', async () => {
    const { code, stdout } = await run('call', '--json', http.url, 'calculate_sum', 'a=1', 'b=1');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).structuredContent).toEqual({ sum: 2 });
  });

  it("refuses arguments given twice (--json '{…}' and --args)", async () => {
    const { code, stderr } = await run('call', http.url, 'calculate_sum', '--json', '{"a":1}', '--args', '{"b":2}');
    expect(code).toBe(1);
    expect(stderr).toMatch(/give the arguments once/);
  });

  it('loads a TypeScript --tools module and calls it over stdio', async () => {
    const tools = `${root}test/fixtures/cli/tools.ts`;
    const { code, stdout } = await run('call', 'greet', 'name=Ada', 'times=2', '--', ...cliCommand, 'serve', '--stdio', '--tools', tools);
    expect(code).toBe(0);
    expect(stdout).toBe('hello Ada hello Ada\n');
  });

  it('loads a JavaScript --tools module', async () => {
    const tools = `${root}test/fixtures/cli/tools.mjs`;
    const { stdout } = await run('call', 'shout', 'text=hey', '--', ...cliCommand, 'serve', '--tools', tools);
    expect(stdout).toBe('HEY\n');
  });
});

describe('exit codes and messages', () => {
  it.each([
    [['list'], /which server/],
    [['list', 'ftp://example.com'], /must be http/],
    [['call', 'http://127.0.0.1:1/mcp'], /which tool/],
    [['list', 'http://127.0.0.1:1/mcp', '--era', 'future'], /future/],
    [['list', 'http://127.0.0.1:1/mcp', '--header', 'no colon'], /Name: value/],
    [['bogus'], /unknown command/],
  ])('%j is a usage error (exit 1)', async (argv, message) => {
    const { code, stderr } = await run(...argv);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
  });

  it('exits 1 for an unknown tool, naming the ones that exist', async () => {
    const { code, stderr } = await run('call', http.url, 'nope');
    expect(code).toBe(1);
    expect(stderr).toMatch(/no tool "nope"; it has: calculate_sum, get_current_time, echo/);
  });

  it('exits 2 when the server cannot be reached, without a stack trace', async () => {
    const { code, stderr } = await run('list', 'http://127.0.0.1:1/mcp');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^toolwright: connection failed: could not reach http:\/\/127\.0\.0\.1:1/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('serve exits 1 for an invalid --tools module, without absolute paths', async () => {
    const bad = `${root}test/fixtures/cli/bad-tools.mjs`;
    const child = spawn(cliCommand[0], [...cliCommand.slice(1), 'serve', '--tools', bad], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const [code] = await once(child, 'close');
    expect(code).toBe(1);
    expect(stderr).toMatch(/Invalid tool "broken": a handler function is required/);
    expect(stderr).not.toContain(root);
  });
});

describe('toolwright serve --http', () => {
  it('serves a tools module a config names by absolute path, next to its toolsets', async () => {
    const cwd = tempDir('toolwright-serve-');
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ toolsets: { math: {} }, tools: [`${root}test/fixtures/cli/tools.mjs`] }));
    const child = spawn(cliCommand[0], [...cliCommand.slice(1), 'serve', '--http', '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => killAndReap(child)); // before its cwd is removed (finished hooks run last first)
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    try {
      await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/serving \d+ tool\(s\) on http:\/\/127\.0\.0\.1:\d+\/mcp/);
      const url = /http:\/\/\S+/.exec(stderr)![0];
      const { code, stdout } = await run('call', url, 'shout', 'text=hi');
      expect([code, stdout.split('\n')[0]]).toEqual([0, 'HI']);
    } finally {
      child.kill('SIGTERM');
    }
    await once(child, 'close');
  });

  it('with no config serves the default toolsets, prints its URL, and exits 0 on SIGTERM', async () => {
    const cwd = tempDir('toolwright-serve-');
    const child = spawn(cliCommand[0], [...cliCommand.slice(1), 'serve', '--http', '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => killAndReap(child)); // before its cwd is removed (finished hooks run last first)
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    try {
      await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/serving 12 tool\(s\) on http:\/\/127\.0\.0\.1:\d+\/mcp/);
      const url = /http:\/\/\S+/.exec(stderr)![0];
      const { code, stdout } = await run('call', url, 'calculate', 'expression=6*7');
      expect([code, stdout.split('\n')[0]]).toEqual([0, '42']);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'close');
    expect(code).toBe(0);
  });
});
