import { execFileSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExecToolsetOptions } from '../../../src/toolsets/exec/index.js';
import { execServer } from './helpers.js';

/**
 * Issue 18, item 3: a repository inside the working root must not run
 * programs through an allow-listed git. Every attempt below uses real git
 * on real repositories in a temp dir, with the most permissive argument
 * patterns an operator could write (`.*`), and a marker file that each
 * planted program would create: no marker may ever appear.
 */
function findGit(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'git');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const GIT = findGit();
if (!GIT) console.warn('\n*** SKIPPED: the git hardening tests need git, which is not installed (they fail under CI=true) ***\n');

afterAll(() => {
  rmSync(base.dir, { recursive: true, force: true });
});

it('git is installed where CI runs the tests (the git hardening tests do not skip there)', () => {
  if (process.env.CI === 'true') expect(GIT, 'git must be installed under CI (.ci/run installs it)').toBeDefined();
});

// Created at load: the tables of planted commands below name the marker directory.
const base = { dir: realpathSync(mkdtempSync(join(tmpdir(), 'toolwright-git-'))) };
const root = join(base.dir, 'root');
const markers = join(base.dir, 'markers');

/** The test's own git: no system or global configuration of this machine, a fixed identity. */
const SETUP_ENV = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: base.dir,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
});
const git = (cwd: string, ...args: string[]) => execFileSync(GIT!, args, { cwd, env: SETUP_ENV(), stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const touch = (name: string) => `touch '${join(markers, name)}'`;
const hook = (name: string) => `#!/bin/sh\n${touch(name)}\n`;

/**
 * A repository with one commit, a modified file (a.txt) and a file rewritten
 * with the same content (b.txt: its changed stat makes git read it through
 * the clean filter), so status and diff have work to do. Its attributes
 * name the drivers "evil", which only some tests define.
 */
function repo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  writeFileSync(join(dir, 'b.txt'), 'same\n');
  writeFileSync(join(dir, '.gitattributes'), '*.txt filter=evil diff=evil merge=evil\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'first');
  writeFileSync(join(dir, 'a.txt'), 'one\ntwo\n');
  rewrite(join(dir, 'b.txt'));
  return dir;
}

/** Same content, new stat: git must hash the file (through its clean filter) to know it is unchanged. */
function rewrite(file: string): void {
  const text = readFileSync(file);
  rmSync(file);
  writeFileSync(file, text);
}

function options(): ExecToolsetOptions {
  return {
    root,
    commands: { git: { path: GIT!, args: ['.*'], description: 'git, any arguments' } },
    env: {
      set: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_AUTHOR_NAME: 'T',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 'T',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    },
  };
}

const planted = () => readdirSync(markers);

describe.skipIf(!GIT)('exec: git runs hardened against the repository it works in', () => {
  beforeAll(() => {
    // The directory above the root is a repository too, with a program in its configuration.
    git(base.dir, 'init', '-q');
    git(base.dir, 'config', 'core.fsmonitor', touch('parent-fsmonitor'));
    mkdirSync(root);
    mkdirSync(markers);
  });
  beforeEach(() => {
    for (const name of planted()) rmSync(join(markers, name));
  });

  describe('fixed-name keys are forced off: the command runs, nothing planted does', () => {
    let dir: string;
    beforeAll(() => {
      dir = repo(join(root, 'fixed'));
      const set = (key: string, value: string) => git(dir, 'config', key, value);
      set('core.fsmonitor', touch('fsmonitor'));
      set('core.pager', `${touch('pager')}; cat`);
      set('pager.log', `${touch('pager-log')}; cat`);
      set('core.editor', touch('editor'));
      set('sequence.editor', touch('sequence-editor'));
      set('core.askPass', join(markers, '..', 'askpass.sh'));
      set('credential.helper', `!${touch('credential')}`);
      set('credential.https://example.com.helper', `!${touch('credential-url')}`);
      set('log.showSignature', 'true');
      set('gpg.program', join(base.dir, 'gpg.sh'));
      set('gc.auto', '1');
      writeFileSync(join(base.dir, 'gpg.sh'), hook('gpg'), { mode: 0o755 });
      writeFileSync(join(base.dir, 'askpass.sh'), hook('askpass'), { mode: 0o755 });
      // Hooks where git looks by default, and in a hooksPath the repository names.
      for (const name of ['pre-commit', 'commit-msg', 'post-commit', 'post-checkout', 'pre-auto-gc', 'post-index-change']) {
        writeFileSync(join(dir, '.git', 'hooks', name), hook(`hook-${name}`), { mode: 0o755 });
      }
      mkdirSync(join(dir, 'myhooks'));
      writeFileSync(join(dir, 'myhooks', 'pre-commit'), hook('hookspath-pre-commit'), { mode: 0o755 });
      set('core.hooksPath', 'myhooks');
      // The attributes name drivers this repository does not define: harmless here.
    });

    it('git status, diff and log -p work and run none of them', async () => {
      const { call } = execServer(options());
      const status = await call({ command: 'git', args: ['status', '--short'], cwd: 'fixed' });
      expect(status.isError, status.content[0].text).toBeUndefined();
      expect(status.structuredContent.stdout).toContain(' M a.txt');
      const diff = await call({ command: 'git', args: ['diff'], cwd: 'fixed' });
      expect(diff.structuredContent.stdout).toContain('+two');
      const log = await call({ command: 'git', args: ['log', '-p', '-1'], cwd: 'fixed' });
      expect(log.structuredContent.stdout).toContain('first');
      expect(planted()).toEqual([]);
    });

    it('git commit and checkout run no hook, editor or signing program', async () => {
      const { call } = execServer(options());
      const commit = await call({ command: 'git', args: ['commit', '-qam', 'second'], cwd: 'fixed' });
      expect(commit.isError, commit.content[0].text).toBeUndefined();
      await call({ command: 'git', args: ['commit', '--amend'], cwd: 'fixed' }); // needs an editor: "false" refuses
      const checkout = await call({ command: 'git', args: ['checkout', '-q', 'HEAD~1'], cwd: 'fixed' });
      expect(checkout.isError, checkout.content[0].text).toBeUndefined();
      expect(planted()).toEqual([]);
    });

    it('git asks no credential helper or askpass program when a remote wants a password', async () => {
      // A remote that asks for credentials: git would ask the helpers, then askpass.
      const remote = http.createServer((_req, res) => res.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end());
      await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
      try {
        git(dir, 'remote', 'add', 'origin', `http://127.0.0.1:${(remote.address() as AddressInfo).port}/repo.git`);
        const { call } = execServer(options());
        const fetch = await call({ command: 'git', args: ['fetch', 'origin'], cwd: 'fixed' });
        expect(fetch.isError).toBe(true);
        expect(planted()).toEqual([]);
      } finally {
        remote.closeAllConnections();
        remote.close();
      }
    });
  });

  describe('keys whose names the repository chooses: git is refused, naming the key', () => {
    let dir: string;
    beforeAll(() => {
      dir = repo(join(root, 'drivers'));
    });

    it.each([
      ['filter.evil.clean', `${touch('filter-clean')}; cat`, ['status']],
      ['filter.evil.smudge', `${touch('filter-smudge')}; cat`, ['checkout', '--', 'a.txt']],
      ['filter.evil.process', touch('filter-process'), ['status']],
      ['diff.evil.command', touch('diff-command'), ['diff']],
      ['diff.evil.textconv', `${touch('textconv')}; cat`, ['log', '-p']],
      ['diff.external', touch('diff-external'), ['diff']],
      ['merge.evil.driver', touch('merge-driver'), ['status']],
      ['alias.st', `!${touch('alias')}`, ['st']],
      ['core.alternateRefsCommand', touch('alternate-refs'), ['status']],
      ['gpg.ssh.defaultKeyCommand', touch('ssh-key-command'), ['status']],
      ['remote.origin.uploadpack', touch('uploadpack'), ['status']],
      ['difftool.evil.cmd', touch('difftool'), ['status']],
      ['submodule.x.update', `!${touch('submodule-update')}`, ['status']],
    ])('%s', async (key, value, args) => {
      git(dir, 'config', key, value);
      try {
        const result = await execServer(options()).call({ command: 'git', args, cwd: 'drivers' });
        expect(result.isError).toBe(true);
        expect(result.content[0].text).toContain(
          `sets "${key.replace(/^([^.]+)\.(?:(.+)\.)?([^.]+)$/, (_m, s: string, sub: string | undefined, v: string) => `${s.toLowerCase()}.${sub === undefined ? '' : `${sub}.`}${v.toLowerCase()}`)}"`,
        );
        expect(result.content[0].text).toContain("never lets a repository's configuration run programs");
        expect(planted()).toEqual([]);
      } finally {
        git(dir, 'config', '--unset-all', key);
      }
    });

    it('follows include.path: a driver defined in an included file is refused too', async () => {
      writeFileSync(join(dir, 'extra.conf'), `[filter "evil"]\n\tclean = ${touch('included-clean')}; cat\n`);
      git(dir, 'config', 'include.path', '../extra.conf');
      try {
        const result = await execServer(options()).call({ command: 'git', args: ['status'], cwd: 'drivers' });
        expect(result.isError).toBe(true);
        expect(result.content[0].text).toContain('"filter.evil.clean"');
        expect(planted()).toEqual([]);
      } finally {
        git(dir, 'config', '--unset-all', 'include.path');
      }
    });

    it('runs again once the setting is gone', async () => {
      const result = await execServer(options()).call({ command: 'git', args: ['status', '--short'], cwd: 'drivers' });
      expect(result.isError, result.content[0].text).toBeUndefined();
    });
  });

  describe('arguments that would undo the hardening are refused, whatever the patterns allow', () => {
    it.each([
      [['-c', `core.fsmonitor=${touch('arg-c')}`, 'status'], 'before the subcommand is refused'],
      [[`--config-env=core.fsmonitor=PATH`, 'status'], 'before the subcommand is refused'],
      [['-C', '..', 'status'], 'before the subcommand is refused'],
      [['--git-dir=../..', 'status'], 'before the subcommand is refused'],
      [['--exec-path=/tmp', 'status'], 'before the subcommand is refused'],
      [['-p', 'log'], 'before the subcommand is refused'],
      [['grep', `-O${touch('grep-pager')}`, 'one'], '"-O'],
      [['grep', `--open-files-in-pager=${touch('grep-pager-long')}`, 'one'], 'is refused on this server'],
      [['diff', '--ext-diff'], 'is refused on this server'],
      [['log', '--textconv', '-p'], 'is refused on this server'],
      [['status', '--ignore-sub=none'], 'is refused on this server'],
      [['diff', '--output=../../outside.txt'], 'is refused on this server'],
      [['diff', '--no-index', '/etc/hostname', 'a.txt'], 'is refused on this server'],
      [['submodule', 'foreach', touch('foreach')], '"git submodule" is refused'],
      [['help', 'status'], '"git help" is refused'],
    ])('%j', async (args, message) => {
      const result = await execServer(options()).call({ command: 'git', args, cwd: '.' });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain(message);
      expect(planted()).toEqual([]);
    });

    it('lets harmless options through: --no-pager, --no-ext-diff, --text, options after "--" are paths', async () => {
      repo(join(root, 'harmless'));
      const { call } = execServer(options());
      const diff = await call({ command: 'git', args: ['--no-pager', 'diff', '--no-ext-diff', '--no-textconv', '--text', '--', 'a.txt'], cwd: 'harmless' });
      expect(diff.isError, diff.content[0].text).toBeUndefined();
      expect(diff.structuredContent.stdout).toContain('+two');
      expect((await call({ command: 'git', args: ['--version'] })).structuredContent.stdout).toMatch(/^git version/);
    });
  });

  describe('repositories reached through or beyond the root', () => {
    let outsideRepo: string;
    beforeAll(() => {
      outsideRepo = repo(join(base.dir, 'outside-repo'));
    });

    it('never discovers the repository above the root', async () => {
      mkdirSync(join(root, 'not-a-repo'), { recursive: true });
      const result = await execServer(options()).call({ command: 'git', args: ['status'], cwd: 'not-a-repo' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent.stderr).toContain('not a git repository');
      expect(planted()).toEqual([]);
    });

    it('refuses a .git file that points to a repository outside the root', async () => {
      const dir = join(root, 'gitfile');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, '.git'), `gitdir: ${join(outsideRepo, '.git')}\n`);
      const result = await execServer(options()).call({ command: 'git', args: ['log', '--oneline'], cwd: 'gitfile' });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain('git directory lies outside the working root');
      expect(result.content[0].text).not.toContain(base.dir);
    });

    it('refuses core.worktree outside the root, and object alternates outside it', async () => {
      const outside = join(base.dir, 'outside-worktree');
      mkdirSync(outside, { recursive: true });
      const wt = repo(join(root, 'worktree'));
      git(wt, 'config', 'core.worktree', outside);
      const worktree = await execServer(options()).call({ command: 'git', args: ['status'], cwd: 'worktree' });
      expect(worktree.isError).toBe(true);
      expect(worktree.content[0].text).toContain('work tree (core.worktree) lies outside the working root');

      const alt = repo(join(root, 'alternates'));
      writeFileSync(join(alt, '.git', 'objects', 'info', 'alternates'), `${join(outsideRepo, '.git', 'objects')}\n`);
      const alternates = await execServer(options()).call({ command: 'git', args: ['log'], cwd: 'alternates' });
      expect(alternates.isError).toBe(true);
      expect(alternates.content[0].text).toContain('object alternates lies outside the working root');
    });

    it("never runs a program from a submodule's own configuration", async () => {
      const inner = repo(join(base.dir, 'inner'));
      git(inner, 'checkout', '-q', '--', 'a.txt');
      const outer = repo(join(root, 'super'));
      git(outer, '-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', inner, 'sub');
      git(outer, 'commit', '-qm', 'sub');
      git(join(outer, 'sub'), 'config', 'filter.evil.clean', `${touch('submodule-clean')}; cat`);
      rewrite(join(outer, 'sub', 'a.txt'));
      const result = await execServer(options()).call({ command: 'git', args: ['status'], cwd: 'super' });
      expect(result.isError, result.content[0].text).toBeUndefined();
      expect(planted()).toEqual([]);
    });

    it('does not use a bare repository written into the root', async () => {
      const bare = join(root, 'bare.git');
      execFileSync(GIT!, ['init', '-q', '--bare', bare], { env: SETUP_ENV() });
      git(bare, 'config', 'alias.st', `!${touch('bare-alias')}`);
      const result = await execServer(options()).call({ command: 'git', args: ['st'], cwd: 'bare.git' });
      expect(result.isError).toBe(true);
      expect(planted()).toEqual([]);
    });
  });

  describe('which executables are git', () => {
    it('recognises git behind a symlink of another name, and a wrapper marked hardening: "git"', async () => {
      const bin = join(base.dir, 'bin');
      mkdirSync(bin, { recursive: true });
      symlinkSync(GIT!, join(bin, 'g'));
      writeFileSync(join(bin, 'git-wrapper'), `#!/bin/sh\nexec '${GIT}' "$@"\n`, { mode: 0o755 });
      const server = execServer({
        ...options(),
        commands: { g: { path: join(bin, 'g'), args: ['.*'] }, wrapped: { path: join(bin, 'git-wrapper'), args: ['.*'], hardening: 'git' } },
      });
      expect(existsSync(join(root, 'fixed'))).toBe(true);
      for (const command of ['g', 'wrapped']) {
        const refused = await server.call({ command, args: ['-c', `core.pager=${touch(command)}`, 'log'], cwd: 'fixed' });
        expect(refused.content[0].text).toContain('before the subcommand is refused');
        const status = await server.call({ command, args: ['status'], cwd: 'fixed' });
        expect(status.isError, status.content[0].text).toBeUndefined();
      }
      expect(planted()).toEqual([]);
    });
  });
});
