import { describe, expect, it } from 'vitest';
import { isWithin } from '../../src/policy/path-parse.js';
import { buildEnvironment } from '../../src/policy/command-env.js';
import { CommandPolicy, CommandRefusal } from '../../src/policy/commands.js';

describe('CommandPolicy', () => {
  const policy = new CommandPolicy({
    commands: {
      git: { path: '/usr/bin/git', positional: ['status|log'], args: ['--oneline', '-n', '[0-9]+'], readOnly: true },
      constructor: { path: '/bin/true' },
    },
    maxArgLength: 10,
  });

  it('anchors every pattern to the whole argument', () => {
    expect(policy.check('git', ['log', '--oneline', '-n', '5']).name).toBe('git');
    expect(() => policy.check('git', ['status --porcelain'])).toThrow(CommandRefusal);
    expect(() => policy.check('git', ['xstatus'])).toThrow(/Argument 1 of git \("xstatus"\) is not allowed/);
    expect(() => policy.check('git', ['log', '5x'])).toThrow(/Argument 2 of git/);
  });

  it('keeps names in a Map: prototype names are ordinary names', () => {
    expect(policy.check('constructor', []).entry.path).toBe('/bin/true');
    expect(() => policy.check('toString', [])).toThrow(/Allowed commands: git, constructor/);
    expect(() => policy.check('__proto__', [])).toThrow(/not allowed/);
  });

  it('caps argument length and count', () => {
    expect(() => policy.check('git', ['log', '12345678901'])).toThrow(/11 characters; the limit is 10/);
    const few = new CommandPolicy({ commands: { e: { path: '/bin/echo', args: ['.*'], maxArgs: 2 } } });
    expect(() => few.check('e', ['a', 'b', 'c'])).toThrow(/at most 2 arguments; 3 were given/);
  });

  it('knows when every entry is read-only', () => {
    expect(policy.allReadOnly).toBe(false);
    expect(new CommandPolicy({ commands: { a: { path: '/bin/a', readOnly: true } } }).allReadOnly).toBe(true);
  });
});

describe('isWithin (the cwd check)', () => {
  it('compares whole path segments', () => {
    expect(isWithin('/srv/root', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root/a', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root-other', '/srv/root')).toBe(false);
    expect(isWithin('/srv/roo', '/srv/root')).toBe(false);
    expect(isWithin('/etc', '/')).toBe(true);
  });
});

describe('buildEnvironment', () => {
  it('treats __proto__ as an ordinary variable name', () => {
    const env = buildEnvironment({ set: JSON.parse('{"__proto__":"x","A":"1"}') as Record<string, string> });
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    expect(Object.keys(env).sort()).toEqual(['A', '__proto__']);
  });

  it('copies only listed variables that are set', () => {
    process.env.TOOLWRIGHT_ENV_TEST = 'v';
    try {
      expect(buildEnvironment({ pass: ['TOOLWRIGHT_ENV_TEST', 'TOOLWRIGHT_NOT_SET'], set: {} })).toEqual({ TOOLWRIGHT_ENV_TEST: 'v' });
    } finally {
      delete process.env.TOOLWRIGHT_ENV_TEST;
    }
  });
});
