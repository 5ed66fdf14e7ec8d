import { describe, expect, it } from 'vitest';
import { DEFAULT_DENY, DenyList } from '../../src/policy/path-deny.js';
import { globToRegExp, GlobSyntaxError } from '../../src/policy/path-glob.js';

describe('globToRegExp', () => {
  it.each([
    ['*.ts', 'main.ts', true], ['*.ts', 'src/main.ts', false], ['**/*.ts', 'src/a/main.ts', true], ['**/*.ts', 'main.ts', true],
    ['src/**', 'src/a/b', true], ['file?.txt', 'file1.txt', true], ['file?.txt', 'file10.txt', false],
    ['[ab].md', 'a.md', true], ['[!ab].md', 'a.md', false], ['*.{png,jpg}', 'x.jpg', true], ['a+b(c).txt', 'a+b(c).txt', true],
    ['.env*', '.env.local', true], ['.env*', 'x.env', false],
  ])('%s against %s → %s', (glob, text, expected) => {
    expect(globToRegExp(glob).test(text)).toBe(expected);
  });

  it('refuses unclosed classes and groups, and empty globs', () => {
    expect(() => globToRegExp('[ab')).toThrow(GlobSyntaxError);
    expect(() => globToRegExp('{a,b')).toThrow(GlobSyntaxError);
    expect(() => globToRegExp('')).toThrow(GlobSyntaxError);
  });
});

describe('DenyList', () => {
  const deny = new DenyList([...DEFAULT_DENY, 'private/**', 'build/secret.txt']);

  it('matches unanchored rules against any segment, ignoring case', () => {
    expect(deny.match(['a', '.git', 'config'])).toBe('.git');
    expect(deny.match(['CREDENTIALS.JSON'])).toBe('credentials.json');
    expect(deny.match(['docs', 'readme.md'])).toBeUndefined();
  });

  it('matches anchored rules against the path from the root and its ancestors', () => {
    expect(deny.match(['private', 'x', 'y.txt'])).toBe('private/**');
    expect(deny.match(['build', 'secret.txt', 'inside'])).toBe('build/secret.txt');
    expect(deny.match(['other', 'private', 'x'])).toBeUndefined();
  });
});
