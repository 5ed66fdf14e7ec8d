import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli, startBuiltCli } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/temp.js';
import { TerminalSession, TMUX } from '../helpers/tmux.js';

// `toolwright run-collection` as a user (or CI) runs it: the built CLI in a child process, against
// the built `toolwright serve` (its default tools include `calculate`) over stdio.

const server = ['--', process.execPath, builtCli, 'serve'];

function project(collections: Record<string, unknown>): string {
  const dir = tempDir('tw-run-coll-');
  writeFileSync(join(dir, 'package.json'), '{"name":"p","private":true}\n');
  mkdirSync(join(dir, '.toolwright', 'collections'), { recursive: true });
  for (const [name, content] of Object.entries(collections)) {
    writeFileSync(join(dir, '.toolwright', 'collections', `${name}.json`), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

async function run(args: string[], cwd: string) {
  const cli = startBuiltCli(['run-collection', ...args], { cwd, env: { NO_COLOR: '1' } });
  const { code } = await cli.exit;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

const sum = { id: 'sum', name: 'adds', tool: 'calculate', arguments: { expression: '2+3' }, expect: { structuredContent: { result: 5 } } };

describe('toolwright run-collection (built CLI, real server)', () => {
  it('exits 0 when every call passes, one line per call and a summary', async () => {
    const cwd = project({ smoke: { calls: [sum, { id: 'plain', tool: 'calculate', arguments: { expression: '1+1' } }] } });
    const { code, stdout, stderr } = await run(['smoke', ...server], cwd);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^✓ adds +calculate +\d+ ms\n✓ plain +calculate +\d+ ms\nsmoke: 2 passed, 0 failed \(2 calls, \d+ ms\)\n$/);
  });

  it('exits 3 on a failed expectation, shows the failure, and runs past an unknown tool', async () => {
    const cwd = project({
      smoke: {
        calls: [
          { id: 'wrong', tool: 'calculate', arguments: { expression: '2+2' }, expect: { structuredContent: { result: 5 } } },
          { id: 'ghost', tool: 'no_such_tool', arguments: {} },
          sum,
        ],
      },
    });
    // no_such_tool is not listed, so nothing says it is harmless: --yes lets it run without a terminal.
    const { code, stdout } = await run(['smoke', '--yes', ...server], cwd);
    expect(code).toBe(3);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^✗ wrong +calculate +\d+ ms +\$\.structuredContent\.result: expected 5, got 4$/);
    expect(lines[1]).toMatch(/^✗ ghost +no_such_tool +\d+ ms +.*no_such_tool/);
    expect(lines[2]).toMatch(/^✓ adds +calculate/);
    expect(lines[3]).toMatch(/^smoke: 1 passed, 2 failed \(3 calls, \d+ ms\)$/);
  });

  it('--json prints the whole report; a file path and @name work too', async () => {
    const cwd = project({});
    writeFileSync(join(cwd, 'ci.json'), JSON.stringify({ calls: [sum] }));
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [builtCli, 'serve'] } } }));
    const { code, stdout } = await run(['./ci.json', '@local', '--json'], cwd);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ name: 'ci', passed: true, total: 1, failed: 0, calls: [{ id: 'sum', label: 'adds', passed: true, failures: [] }] });
    expect(report.calls[0].result.structuredContent).toEqual({ expression: '2+3', result: 5 });
  });

  it('exits 1 for an unknown collection or an invalid file, naming the file, the call and the key, before starting the server', async () => {
    const cwd = project({ broken: { calls: [sum, { id: 'bad', tool: 'calculate', expect: { subset: {} } }] } });
    const unknown = await run(['nope', ...server], cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no collection "nope" in .toolwright/collections');
    const invalid = await run(['broken', ...server], cwd);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('broken.json is not a valid collection');
    expect(invalid.stderr).toContain('call 2 (id "bad"): collection.calls[1].expect.subset: unexpected field');
    const hostileName = await run(['../etc', ...server], cwd);
    expect(hostileName.code).toBe(1);
  });

  it('exits 2 when the server cannot be reached', async () => {
    const cwd = project({ smoke: { calls: [sum] } });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { code, stderr } = await run(['smoke', `http://127.0.0.1:${port}/mcp`, '--connect-timeout', '5000'], cwd);
    expect(code).toBe(2);
    expect(stderr).toMatch(/connection failed/);
  });

  it('exits 2 when the server goes away during the run, every call still reported', async () => {
    const cwd = project({
      die: {
        calls: [
          { id: 'a', tool: 'ok' },
          { id: 'b', tool: 'die' },
          { id: 'c', tool: 'ok' },
        ],
      },
    });
    writeFileSync(
      join(cwd, 'die.mjs'),
      `export default [
  { name: 'die', description: 'Exits the server.', inputSchema: { type: 'object', properties: {} }, handler: () => process.exit(1) },
  { name: 'ok', description: 'Fine.', inputSchema: { type: 'object', properties: {} }, handler: () => 'fine' },
];\n`,
    );
    const { code, stdout, stderr } = await run(['die', '--yes', '--', process.execPath, builtCli, 'serve', '--tools', './die.mjs'], cwd);
    expect(code).toBe(2);
    expect(stdout).toMatch(/^✓ a +ok .*\n✗ b +die +\d+ ms +the server process exited with code 1\n✗ c +ok .*\ndie: 1 passed, 2 failed/);
    expect(stderr).toContain('toolwright: the connection was lost during the run (at call "b": the server process exited with code 1)');
  });

  it('strips terminal escapes from labels, tool names and failures', async () => {
    const cwd = project({ evil: { calls: [{ id: 'x', name: 'red\u001b[31m\u202elabel', tool: 'no\u001b]0;title\u0007_tool' }] } });
    const { code, stdout } = await run(['evil', '--yes', ...server], cwd);
    expect(code).toBe(3);
    expect(stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(stdout).toMatch(/^✗ redlabel +no_tool +\d+ ms/);
  });
});

const collectionTools = fileURLToPath(new URL('../fixtures/cli/collection-tools.mjs', import.meta.url));
const withTools = ['--', process.execPath, builtCli, 'serve', '--tools', collectionTools];
const mixed = {
  calls: [
    { id: 'count', tool: 'count' },
    { id: 'append', tool: 'append' },
    { id: 'wipe-all', tool: 'wipe', arguments: { everything: true } },
    { id: 'mystery', tool: 'mystery' },
  ],
};
const calledIn = (cwd: string) => (existsSync(join(cwd, 'called.log')) ? readFileSync(join(cwd, 'called.log'), 'utf8').split('\n').filter(Boolean) : []);

describe('toolwright run-collection and destructive calls (issue 30)', () => {
  it('without a terminal, refuses a collection with destructive calls unless --yes, naming them and --yes, before any call', async () => {
    const cwd = project({ mixed });
    const refused = await run(['mixed', ...withTools], cwd);
    expect(refused.code).toBe(1);
    // wipe says destructiveHint: true; mystery says nothing, which the spec's defaults count as destructive.
    expect(refused.stderr).toContain(
      'mixed has 2 calls that may change or destroy data (wipe-all (wipe), mystery), and there is no terminal to confirm: run it with --yes',
    );
    expect(refused.stdout).toBe('');
    expect(calledIn(cwd)).toEqual([]);

    const allowed = await run(['mixed', '--yes', ...withTools], cwd);
    expect(allowed.code).toBe(0);
    expect(calledIn(cwd)).toEqual(['count', 'append', 'wipe', 'mystery']);
  });

  it('runs a collection of read-only and harmless calls without asking', async () => {
    const cwd = project({ safe: { calls: [mixed.calls[0], mixed.calls[1]] } });
    const { code } = await run(['safe', ...withTools], cwd);
    expect(code).toBe(0);
    expect(calledIn(cwd)).toEqual(['count', 'append']);
  });

  it('lines up the tool column whatever the tool names’ lengths', async () => {
    const cwd = project({
      mixed: {
        calls: [
          { id: 'a', tool: 'calculate', arguments: { expression: '1+1' } },
          { id: 'b', tool: 'get_current_time', arguments: {} },
        ],
      },
    });
    const { code, stdout } = await run(['mixed', ...server], cwd);
    expect(code).toBe(0);
    const [first, second] = stdout.split('\n');
    expect(first).toMatch(/^✓ a {2}calculate {9}\d+ ms$/);
    expect(second).toMatch(/^✓ b {2}get_current_time {2}\d+ ms$/);
    expect(first.search(/\d+ ms/)).toBe(second.search(/\d+ ms/));
  });
});

describe.skipIf(!TMUX)('toolwright run-collection at a terminal (issue 30)', () => {
  let term: TerminalSession | undefined;
  afterEach(async () => {
    await term?.kill();
    term = undefined;
  });

  it('lists the destructive calls and asks; no runs nothing (exit 1), yes runs them', async () => {
    const cwd = project({ mixed });
    term = await TerminalSession.start([process.execPath, builtCli, 'run-collection', 'mixed', ...withTools], { cwd, env: { NO_COLOR: '1' } });
    const screen = await term.waitFor('Run mixed? [y/N]');
    expect(screen).toContain('toolwright: mixed has 2 calls that may change or destroy data');
    expect(screen).toContain('  wipe-all (wipe) {"everything":true}');
    expect(screen).toContain('  mystery {}');
    await term.type('n');
    await term.press('Enter');
    await term.waitFor('[exited 1]');
    expect(await term.screen()).toContain('toolwright: mixed was not run');
    expect(calledIn(cwd)).toEqual([]);
    await term.kill();

    term = await TerminalSession.start([process.execPath, builtCli, 'run-collection', 'mixed', ...withTools], { cwd, env: { NO_COLOR: '1' } });
    await term.waitFor('Run mixed? [y/N]');
    await term.type('y');
    await term.press('Enter');
    await term.waitFor('[exited 0]');
    expect(await term.screen()).toMatch(/mixed: 4 passed, 0 failed/);
    expect(calledIn(cwd)).toEqual(['count', 'append', 'wipe', 'mystery']);
  }, 60_000);
});
