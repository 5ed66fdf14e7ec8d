import { describe, expect, it } from 'vitest';
import { CommandPolicy, CommandRefusal } from '../../src/policy/commands.js';
import { checkGitArguments, dangerousGitConfig, GIT_CONFIG_OVERRIDES, hardenedGitArgs, hardenedGitEnv } from '../../src/policy/git-hardening.js';

/** `git config --list -z` output for key/value pairs (a null value: a key without "="). */
const listed = (entries: Array<[string, string | null]>) => entries.map(([k, v]) => (v === null ? `${k}\0` : `${k}\n${v}\0`)).join('');

describe('dangerousGitConfig', () => {
  it('passes an ordinary repository configuration, and every key the overrides force', () => {
    const ordinary: Array<[string, string | null]> = [
      ['core.repositoryformatversion', '0'],
      ['core.bare', 'false'],
      ['remote.origin.url', 'https://example.com/x.git'],
      ['remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'],
      ['branch.main.remote', 'origin'],
      ['user.name', 'A'],
      ['core.worktree', '../..'],
      ['pager.log', 'less'],
      ['diff.evil.binary', 'true'],
      ['filter.lfs.required', 'true'],
      ['include.path', 'x.conf'],
      ['submodule.a.update', 'rebase'],
      ['core.autocrlf', null],
      ['http.proxy', 'http://p:3128'],
      ['credential.https://example.com.helper', '!evil'],
      ['gpg.ssh.program', 'evil'],
    ];
    expect(dangerousGitConfig(listed(ordinary))).toBeUndefined();
    expect(dangerousGitConfig(listed(GIT_CONFIG_OVERRIDES.map(([k, v]) => [k.toLowerCase(), v])))).toBeUndefined();
  });

  it.each([
    ['filter.EVIL.clean', 'x', 'it names a program git runs (filter clean)'],
    ['filter.a.b.smudge', 'x', 'it names a program git runs (filter smudge)'],
    ['filter.x.process', 'x', 'it names a program git runs (filter process)'],
    ['diff.x.textconv', 'x', 'it names a program git runs (diff textconv)'],
    ['diff.x.command', 'x', 'it names a program git runs (diff command)'],
    ['diff.external', 'x', 'it names a program git runs'],
    ['merge.x.driver', 'x', 'it names a program git runs (merge driver)'],
    ['alias.co', 'checkout', 'an alias can run any shell command'],
    ['remote.origin.vcs', 'x', 'it names a program git runs (remote vcs)'],
    ['submodule.s.update', '  !sh', 'a "!command" update runs a shell command'],
    ['sendemail.smtpserver', '/usr/bin/evil', 'it names a program git runs'],
    ['sendemail.tocmd', 'x', 'its name says it runs a program'],
    ['guitool.x.cmd', 'x', 'its name says it runs a program'],
    ['uploadpack.packobjectshook', 'x', 'its name says it runs a program'],
    ['some.future.launchcommand', 'x', 'its name says it runs a program'],
    ['interactive.difffilter', 'x', 'it names a program git runs'],
  ])('refuses %s', (key, value, why) => {
    expect(
      dangerousGitConfig(
        listed([
          ['core.bare', 'false'],
          [key, value],
        ]),
      ),
    ).toEqual({ key, why });
  });

  it('reads keys without a value and values that span lines', () => {
    expect(dangerousGitConfig('alias.x\0')).toEqual({ key: 'alias.x', why: 'an alias can run any shell command' });
    expect(dangerousGitConfig('user.name\nA\nB\0filter.x.clean\nline1\nline2\0')?.key).toBe('filter.x.clean');
  });
});

describe('checkGitArguments', () => {
  const refused = (args: string[]) => {
    try {
      checkGitArguments('git', args);
    } catch (err) {
      expect(err).toBeInstanceOf(CommandRefusal);
      return (err as Error).message;
    }
    return undefined;
  };

  it('refuses every global option before the subcommand except the harmless ones', () => {
    for (const args of [
      ['-c', 'a=b', 'status'],
      ['-ccore.pager=x', 'log'],
      ['--config-env=a=B', 'status'],
      ['-C', '/', 'status'],
      ['--git-dir=/x', 'log'],
      ['--work-tree=/', 'status'],
      ['--exec-path=/tmp', 'status'],
      ['--paginate', 'log'],
      ['--help'],
      ['--namespace=x', 'log'],
      ['--bare', 'log'],
      ['--list-cmds=main'],
    ]) {
      expect(refused(args), args.join(' ')).toContain('before the subcommand is refused');
    }
    for (const args of [['--no-pager', 'log'], ['--no-optional-locks', '--literal-pathspecs', 'status'], ['-P', 'log'], ['--version'], []]) {
      expect(refused(args), args.join(' ')).toBeUndefined();
    }
  });

  it('refuses options that run programs or turn the hardening off, and their abbreviations', () => {
    for (const args of [
      ['diff', '--ext-diff'],
      ['diff', '--ext-d'],
      ['log', '--textconv'],
      ['log', '--textc'],
      ['status', '--ignore-submodules=none'],
      ['status', '--ignore-sub=none'],
      ['status', '--recurse-submodules'],
      ['diff', '--submodule=diff'],
      ['rebase', '--exec=sh'],
      ['rebase', '-ix', 'sh'],
      ['grep', '-nOvim', 'x'],
      ['clone', '-u', 'x', 'u'],
      ['clone', '--config=core.fsmonitor=x', 'u'],
      ['fetch', '--upload-pack=x'],
      ['push', '--receive-pack=x'],
      ['log', '--output=/tmp/x'],
      ['format-patch', '-o', '/tmp'],
      ['config', '-f', '/tmp/x', 'a.b', 'c'],
      ['config', '--file=/tmp/x', '-l'],
      ['init', '--separate-git-dir=/tmp/x'],
      ['clone', '--reference=/x', 'u'],
      ['diff', '--no-index', 'a', 'b'],
      ['archive', '-o', '/tmp/x', 'HEAD'],
    ]) {
      expect(refused(args), args.join(' ')).toContain('is refused on this server');
    }
  });

  it('lets negations, look-alike options and pathspecs after -- through', () => {
    for (const args of [
      ['diff', '--no-ext-diff', '--no-textconv', '--text'],
      ['log', '--oneline', '--stat', '--cc', '--raw', '--reverse'],
      ['status', '--ignored', '--short'],
      ['diff', '--output-indicator-new=+'],
      ['grep', '-n', 'pattern'],
      ['log', '--', '--output=x'],
      ['clean', '-x', '-n'],
      ['log', '-c'],
    ]) {
      expect(refused(args), args.join(' ')).toBeUndefined();
    }
  });

  it('refuses subcommands that run programs by design', () => {
    for (const sub of ['submodule', 'difftool', 'mergetool', 'bisect', 'filter-branch', 'help', 'send-email', 'instaweb']) {
      expect(refused([sub])).toContain(`"git ${sub}" is refused on this server`);
    }
    expect(refused(['constructor'])).toBeUndefined();
  });
});

describe('hardenedGitArgs and hardenedGitEnv', () => {
  it('puts --no-pager and the overrides first, and --no-ext-diff --no-textconv after a diff-family subcommand', () => {
    const args = hardenedGitArgs(['--no-pager', 'log', '-p', '--', 'x']);
    expect(args[0]).toBe('--no-pager');
    expect(args).toContain('core.fsmonitor=false');
    expect(args).toContain('core.hooksPath=/dev/null');
    expect(args.slice(-6)).toEqual(['log', '--no-ext-diff', '--no-textconv', '-p', '--', 'x']);
    expect(hardenedGitArgs(['status']).slice(-1)).toEqual(['status']);
    expect(hardenedGitArgs(['status'])).not.toContain('--no-ext-diff');
  });

  it("removes where configuration and prompts come from, and keeps the operator's other variables", () => {
    const env = hardenedGitEnv({ PATH: '/bin', HOME: '/home/x', XDG_CONFIG_HOME: '/x', GIT_ASKPASS: '/evil', LANG: 'C' }, '/srv');
    expect(env).toMatchObject({
      PATH: '/bin',
      LANG: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      GIT_CEILING_DIRECTORIES: '/srv',
      GIT_PROTOCOL_FROM_USER: '0',
    });
    expect(env.HOME).toBeUndefined();
    expect(env.XDG_CONFIG_HOME).toBeUndefined();
    expect(hardenedGitEnv({}, undefined).GIT_CEILING_DIRECTORIES).toBeUndefined();
  });
});

describe('CommandPolicy: which commands run hardened', () => {
  it("recognises git by the executable's name whatever its directory, and only git", () => {
    const policy = new CommandPolicy({
      commands: {
        a: { path: '/usr/bin/git' },
        b: { path: '/opt/tools/git' },
        c: { path: '/bin/echo' },
        d: { path: '/bin/echo', hardening: 'git' },
        e: { path: '/usr/bin/gitk' },
      },
    });
    expect(['a', 'b', 'c', 'd', 'e'].map((n) => policy.get(n)!.hardening)).toEqual(['git', 'git', undefined, 'git', undefined]);
    expect(policy.summary()).toContain('runs hardened');
  });

  it("applies the git argument rules on top of the operator's patterns", () => {
    const policy = new CommandPolicy({ commands: { git: { path: '/usr/bin/git', args: ['.*'] } } });
    expect(() => policy.check('git', ['-c', 'core.pager=x', 'log'])).toThrow('before the subcommand is refused');
    expect(policy.check('git', ['status']).name).toBe('git');
  });

  it('refuses an unknown hardening value at start-up', () => {
    expect(() => new CommandPolicy({ commands: { x: { path: '/bin/x', hardening: 'none' as 'git' } } })).toThrow('unknown "hardening" "none"');
  });
});
