import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execTools } from '../../../src/toolsets/exec/index.js';
import type { ExecToolsetOptions } from '../../../src/toolsets/exec/index.js';
import { execServer, tempRoot } from './helpers.js';

let base: Awaited<ReturnType<typeof tempRoot>>;
let root: string;

beforeAll(async () => {
  base = await tempRoot();
  root = join(base.dir, 'root');
  await mkdir(join(root, 'sub', 'deeper'), { recursive: true });
  // A sibling whose name starts with the root's: a naive prefix test would let it in.
  await mkdir(join(base.dir, 'root-other'));
  await symlink(base.dir, join(root, 'escape'));
  await symlink(join(root, 'sub'), join(root, 'inside-link'));
  await writeFile(join(root, 'file.txt'), 'x');
});
afterAll(async () => {
  await base.cleanup();
});

function options(extra: Partial<ExecToolsetOptions> = {}): ExecToolsetOptions {
  return {
    root,
    commands: {
      echo: { path: '/bin/echo', args: ['.*'], readOnly: true, description: 'prints its arguments' },
      greet: { path: '/bin/echo', positional: ['hello|goodbye'], readOnly: true },
      sleep: { path: '/bin/sleep', positional: ['[0-9]{1,2}(\\.[0-9]+)?'] },
      pwd: { path: '/bin/pwd', readOnly: true },
      env: { path: '/usr/bin/env', readOnly: true, env: { ENTRY_ONLY: 'from-entry' } },
      ls: { path: '/bin/ls', args: ['[^-].*'], readOnly: true },
      yes: { path: '/usr/bin/yes' },
      missing: { path: '/nonexistent/toolwright-binary' },
    },
    ...extra,
  };
}

describe('execute_command: running allowed commands', () => {
  it('runs an allowed executable with argv and returns exit code, stdout and stderr', async () => {
    const { call } = execServer(options());
    // Shell metacharacters are plain characters in an argv: nothing expands, nothing chains.
    const result = await call({ command: 'echo', args: ['hello', '$HOME', '; rm -rf /', '`id`'] });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ exitCode: 0, signal: null, stdout: 'hello $HOME ; rm -rf / `id`\n', stderr: '', timedOut: false });
    expect(result.content[0].text).toContain('exited with code 0');
  });

  it('reports a non-zero exit as an isError result that carries the output', async () => {
    const { call } = execServer(options());
    const result = await call({ command: 'ls', args: ['no-such-file'] });
    expect(result.isError).toBe(true);
    expect(result.structuredContent.exitCode).toBe(2);
    expect(result.structuredContent.stderr).toContain('no-such-file');
    expect(result.content[0].text).toContain('ls exited with code 2');
  });

  it('runs in the root by default and in a directory inside it when asked (symlinks inside the root are fine)', async () => {
    const { call } = execServer(options());
    const real = (await import('node:fs/promises')).realpath;
    expect((await call({ command: 'pwd' })).structuredContent.stdout).toBe(`${await real(root)}\n`);
    expect((await call({ command: 'pwd', cwd: 'sub/deeper' })).structuredContent.stdout).toBe(`${await real(join(root, 'sub', 'deeper'))}\n`);
    expect((await call({ command: 'pwd', cwd: 'inside-link' })).structuredContent.stdout).toBe(`${await real(join(root, 'sub'))}\n`);
  });

  it('passes only the listed variables: a secret in the server environment is not visible', async () => {
    process.env.TOOLWRIGHT_TEST_SECRET = 'hunter2-secret';
    process.env.TOOLWRIGHT_TEST_VISIBLE = 'visible-value';
    try {
      const { call } = execServer(options({ env: { pass: ['TOOLWRIGHT_TEST_VISIBLE', 'TOOLWRIGHT_TEST_UNSET'], set: { PATH: '/usr/bin:/bin', LANG: 'C' } } }));
      const out = (await call({ command: 'env' })).structuredContent.stdout as string;
      const vars = out.trim().split('\n').sort();
      expect(vars).toEqual(['ENTRY_ONLY=from-entry', 'LANG=C', 'PATH=/usr/bin:/bin', 'TOOLWRIGHT_TEST_VISIBLE=visible-value']);
      expect(out).not.toContain('hunter2');
    } finally {
      delete process.env.TOOLWRIGHT_TEST_SECRET;
      delete process.env.TOOLWRIGHT_TEST_VISIBLE;
    }
  });

  it('defaults to an environment of PATH alone', async () => {
    const { call } = execServer(options());
    const out = (await call({ command: 'env' })).structuredContent.stdout as string;
    expect(out.trim().split('\n').sort()).toEqual(['ENTRY_ONLY=from-entry', 'PATH=/usr/local/bin:/usr/bin:/bin']);
  });

  it('caps each stream, keeping the start and the end with a marker between', async () => {
    const { call } = execServer(options({ maxOutputBytes: 1000, maxArgLength: 20_000 }));
    const big = `START${'x'.repeat(10_000)}END`;
    const result = await call({ command: 'echo', args: [big] });
    const { stdout, stdoutTruncated } = result.structuredContent;
    expect(stdoutTruncated).toBe(true);
    expect(stdout.startsWith('START')).toBe(true);
    expect(stdout.endsWith('END\n')).toBe(true);
    expect(stdout).toMatch(/\[output truncated: \d+ bytes omitted\]/);
    expect(stdout.length).toBeLessThan(1100);
    expect(result.content[0].text).toContain('stdout (10009 bytes, truncated)');
  });

  it('kills a command that floods its output far past the cap', async () => {
    const { call } = execServer(options({ maxOutputBytes: 1000, killAfterOutputBytes: 1 << 20 }));
    const result = await call({ command: 'yes' });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain(`wrote more than ${1 << 20} bytes of output and was stopped`);
    expect(result.structuredContent).toMatchObject({ signal: 'SIGKILL', stdoutTruncated: true });
  });

  it('says when an allowed executable is missing on the server', async () => {
    const { call } = execServer(options());
    const result = await call({ command: 'missing' });
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('its executable is missing on this server') }] });
  });
});

describe('execute_command: refusals are isError results that say what is allowed', () => {
  it('refuses a command that is not on the allow-list, listing the allowed ones', async () => {
    const { call } = execServer(options());
    for (const command of ['rm', '/bin/echo', 'constructor', '__proto__']) {
      const result = await call({ command, args: [] });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain('"echo", "greet", "sleep"');
    }
  });

  it('refuses arguments that do not match the patterns, whole-argument', async () => {
    const { call } = execServer(options());
    expect((await call({ command: 'greet', args: ['hello'] })).structuredContent.stdout).toBe('hello\n');
    const partial = await call({ command: 'greet', args: ['hello; rm -rf /'] });
    expect(partial.isError).toBe(true);
    expect(partial.content[0].text).toBe('Argument 1 of greet ("hello; rm -rf /") is not allowed. Allowed: argument 1 matching /hello|goodbye/.');
    const extra = await call({ command: 'greet', args: ['hello', 'world'] });
    expect(extra.content[0].text).toContain('greet takes at most 1 argument on this server; argument 2 ("world") was refused');
    const none = await call({ command: 'pwd', args: ['-P'] });
    expect(none.content[0].text).toContain('pwd takes no arguments on this server');
    const option = await call({ command: 'ls', args: ['-la'] });
    expect(option.content[0].text).toContain('Argument 1 of ls ("-la") is not allowed. Allowed: arguments each matching one of /[^-].*/.');
  });

  it('refuses a NUL byte in an argument', async () => {
    const { call } = execServer(options());
    const result = await call({ command: 'echo', args: ['a\u0000b'] });
    expect(result.content[0].text).toContain('contains a NUL character');
  });

  it.each([
    ['..', 'leads outside the working root'],
    ['../root-other', 'leads outside the working root'],
    ['sub/../../root-other', 'leads outside the working root'],
    ['escape', 'leads outside the working root'],
    ['escape/root-other', 'leads outside the working root'],
    ['/etc', 'is absolute'],
    ['nope', 'does not exist inside the working root'],
    ['file.txt', 'is not a directory'],
  ])('refuses cwd %j', async (cwd, message) => {
    const { call } = execServer(options());
    const result = await call({ command: 'pwd', cwd });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain(message);
    // Never the absolute root.
    expect(result.content[0].text).not.toContain(dirname(root));
  });
});

describe('execute_command: annotations and approval', () => {
  it('is destructive unless every entry is read-only', async () => {
    const mixed = execTools(options())[0];
    expect(mixed.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(mixed.description).toContain("a call waits for the user's approval unless its command is marked read-only");
    const readOnly = execTools({ root, commands: { echo: { path: '/bin/echo', args: ['.*'], readOnly: true } } })[0];
    expect(readOnly.annotations).toMatchObject({ destructiveHint: false, readOnlyHint: true });
  });

  it('does not run a destructive command for a client that cannot approve it', async () => {
    const { call } = execServer(options(), 'destructive');
    const result = await call({ command: 'sleep', args: ['0'] });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain("needs the user's approval");
    expect(result.structuredContent).toBeUndefined();
  });

  it('asks for approval by the command each call runs: none for a read-only one, as before for the rest', async () => {
    const commands = {
      ...options().commands,
      find: { path: '/usr/bin/find', args: ['.*'], readOnly: true },
      sort: { path: '/usr/bin/sort', args: ['.*'], readOnly: true },
      git: { path: '/usr/bin/git', args: ['.*'], readOnly: true },
      bash: { path: '/bin/bash', args: ['.*'], readOnly: true },
    };
    const { modern } = execServer({ root, commands }, 'destructive');
    const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const call = async (args: Record<string, unknown>) => (await modern('tools/call', { name: 'execute_command', arguments: args }, caps)).result;
    // An allow-listed read-only command runs at once, though the tool as a whole stays destructive (a hint for clients).
    const ls = await call({ command: 'ls', args: ['file.txt'] });
    expect(ls.structuredContent.stdout).toBe('file.txt\n');
    expect((await call({ command: 'find', args: ['.', '-name', 'file.txt'] })).structuredContent.stdout).toBe('./file.txt\n');
    expect(execTools({ root, commands })[0].annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    for (const asks of [
      { command: 'sleep', args: ['0'] }, // not marked read-only
      { command: 'find', args: ['.', '-name', 'file.txt', '-delete'] }, // read-only entry, writing option
      { command: 'find', args: ['.', '-exec', 'rm', '{}', ';'] },
      { command: 'sort', args: ['-uo', 'out.txt', 'file.txt'] },
      { command: 'sort', args: ['--output=out.txt', 'file.txt'] },
      { command: 'git', args: ['commit', '-m', 'x'] },
      { command: 'git', args: ['-C', '..', 'log'] },
      { command: 'git', args: ['diff', '--output=out.txt'] },
      { command: 'bash', args: ['-c', 'ls'] }, // runs other programs, whatever the entry says
      { command: 'env', args: [] },
      { command: 'ls', args: ['-la'] }, // refused by the allow-list: nothing is waived
    ]) {
      expect((await call(asks)).resultType, JSON.stringify(asks)).toBe('input_required');
    }
  });

  it('runs read-only toolsets without approval', async () => {
    const { call } = execServer({ root, commands: { echo: { path: '/bin/echo', args: ['.*'], readOnly: true } } }, 'destructive');
    expect((await call({ command: 'echo', args: ['hi'] })).structuredContent.stdout).toBe('hi\n');
  });

  it('lists the allowed commands and their argument rules in its description', async () => {
    const { modern } = execServer(options());
    const tool = (await modern('tools/list')).result.tools[0];
    expect(tool.description).toContain('echo (prints its arguments): arguments each matching one of /.*/; read-only');
    expect(tool.description).toContain('sleep: argument 1 matching /[0-9]{1,2}(\\.[0-9]+)?/');
    expect(tool.inputSchema.properties.command.enum).toContain('sleep');
  });

  it('refuses bad configuration at construction', () => {
    expect(() => execTools({ root, commands: { echo: { path: 'echo' } } })).toThrow(/absolute "path"/);
    expect(() => execTools({ root: 'relative', commands: { echo: { path: '/bin/echo' } } })).toThrow(/absolute directory/);
    expect(() => execTools({ root, commands: { echo: { path: '/bin/echo', args: ['('] } } })).toThrow(/not a valid regular expression/);
    expect(() => execTools({ root, commands: {} })).toThrow(/at least one command/);
    expect(() => execTools({ root, commands: { 'a b': { path: '/bin/echo' } } })).toThrow(/command name/);
    expect(() => execTools({ root, env: { pass: ['BAD-NAME'] }, commands: { echo: { path: '/bin/echo' } } })).toThrow(/not valid/);
  });

  it('names the option in whole messages for bad limits, as every toolset does', () => {
    const fails = (options: Partial<ExecToolsetOptions>, message: string) =>
      expect(() => execTools({ root, commands: { echo: { path: '/bin/echo' } }, ...options })).toThrow(new TypeError(message));
    fails({ root: 'relative' }, 'exec toolset: "root" must be an absolute directory path');
    fails({ timeoutMs: 0 }, 'exec toolset: "timeoutMs" must be a positive integer');
    fails({ maxOutputBytes: 1.5 }, 'exec toolset: "maxOutputBytes" must be a positive integer');
    fails({ commands: { echo: { path: '/bin/echo', timeoutMs: -1 } } }, 'exec toolset: "commands.echo.timeoutMs" must be a positive integer');
  });
});
