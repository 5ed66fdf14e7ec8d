import { describe, expect, it } from 'vitest';
import { DEFAULT_DENY, DenyList } from '../../src/policy/path-deny.js';
import { GlobAutomaton } from '../../src/policy/glob-automaton.js';
import { parseGlob } from '../../src/policy/glob-parse.js';
import { compileGlob, GlobSyntaxError } from '../../src/policy/path-glob.js';

const matches = (glob: string, text: string, caseInsensitive = false) => compileGlob(glob, { caseInsensitive }).test(text);

describe('compileGlob', () => {
  it.each([
    ['*.ts', 'main.ts', true],
    ['*.ts', 'src/main.ts', false],
    ['**/*.ts', 'src/a/main.ts', true],
    ['**/*.ts', 'main.ts', true],
    ['src/**', 'src/a/b', true],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file10.txt', false],
    ['[ab].md', 'a.md', true],
    ['[!ab].md', 'a.md', false],
    ['*.{png,jpg}', 'x.jpg', true],
    ['a+b(c).txt', 'a+b(c).txt', true],
    ['.env*', '.env.local', true],
    ['.env*', 'x.env', false],
  ])('%s against %s → %s', (glob, text, expected) => {
    expect(matches(glob, text)).toBe(expected);
  });

  it.each([
    // classes: a leading ] is a member, ranges, negation never matches /
    ['[]a]', ']', true],
    ['[a-c]x', 'bx', true],
    ['[a-c]x', 'dx', false],
    ['[!a-c]', '/', false],
    ['[!a-c]', 'd', true],
    ['[a-]', '-', true],
    // braces nest, alternatives may be empty, and an alternative may hold any glob
    ['{a,{b,{c,d}}}', 'd', true],
    ['{a,{b,{c,d}}}', '{c', false],
    ['x{,y}', 'x', true],
    ['{*.md,src/**}', 'src/a/b.ts', true],
    // `**/` is zero or more whole directories; `**` anywhere is any run; runs of stars are one `**`
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/xb', false],
    ['a**b', 'a/x/b', true],
    ['a***b', 'a/b', true],
    // `**` matches a line break too: a deny rule must not be dodged by an odd file name
    ['secret/**', 'secret/a\nb', true],
    ['*', 'a\nb', true],
    // one character is one code point; regex syntax and backslashes are plain characters
    ['?', '😀', true],
    ['??', '😀', false],
    ['a\\b', 'a\\b', true],
    ['(a|b)$', '(a|b)$', true],
    ['a.b', 'axb', false],
    // commas and closing braces outside braces are plain characters
    ['a,b}', 'a,b}', true],
  ])('%j against %j → %s', (glob, text, expected) => {
    expect(matches(glob, text)).toBe(expected);
  });

  it('ignores case when asked, in literals and classes alike', () => {
    expect(matches('*.ENV', 'x.env', true)).toBe(true);
    expect(matches('[A-C]x', 'bX', true)).toBe(true);
    expect(matches('[a-c]x', 'BX', true)).toBe(true);
    expect(matches('[!A-C]x', 'bx', true)).toBe(false);
    expect(matches('*.ENV', 'x.env')).toBe(false);
  });

  it('refuses unclosed classes and groups, out-of-order ranges, too deep nesting and empty or oversized globs', () => {
    for (const bad of ['[ab', '{a,b', '{a,{b}', '[z-a]', '', 'x'.repeat(1001), `${'{a,'.repeat(17)}${'}'.repeat(17)}`]) {
      expect(() => compileGlob(bad), bad.slice(0, 20)).toThrow(GlobSyntaxError);
    }
    expect(() => compileGlob('[z-a]')).toThrow('the range "z-a" at character 2 is out of order');
    expect(() => compileGlob(`${'{a,'.repeat(16)}b${'}'.repeat(16)}`)).not.toThrow();
  });

  describe('answers pathological globs at once, with the right answer', () => {
    // Each of these made the former RegExp translation backtrack for minutes or for ever.
    const long = 'a'.repeat(10_000);

    it('490 stars and an x', () => {
      const glob = compileGlob(`${'*'.repeat(490)}x`);
      expect(glob.test(long)).toBe(false);
      expect(glob.test(`${long}x`)).toBe(true);
      expect(glob.test(`dir/${long}x`)).toBe(true); // a run of stars is `**`
    });

    it('*a*a*a…*b, with too few a and with enough', () => {
      const glob = compileGlob(`${'*a'.repeat(249)}*b`);
      expect(glob.test(long)).toBe(false);
      expect(glob.test(`${'a'.repeat(248)}b`)).toBe(false);
      expect(glob.test(`${'xa'.repeat(249)}b`)).toBe(true);
      expect(glob.test(`${long}b`)).toBe(true);
      expect(glob.test(`${long}/b`)).toBe(false); // `*` stops at a slash
    });

    it('nested and repeated braces, never expanded', () => {
      let nested = 'b';
      for (let i = 0; i < 16; i++) nested = `{a,${nested}}`;
      expect(compileGlob(nested).test('b')).toBe(true);
      expect(compileGlob(nested).test('c')).toBe(false);
      const repeated = compileGlob('{a,aa,b}'.repeat(120)); // 3^120 expansions
      expect(repeated.test('a'.repeat(240))).toBe(true);
      expect(repeated.test(`${'a'.repeat(239)}c`)).toBe(false);
    });

    it('many `**/` and `?`', () => {
      const dirs = compileGlob(`${'**/'.repeat(300)}x`);
      expect(dirs.test(`${'d/'.repeat(2_000)}x`)).toBe(true);
      expect(dirs.test(`${'d/'.repeat(2_000)}y`)).toBe(false);
      const ones = compileGlob(`${'?*'.repeat(300)}!`);
      expect(ones.test(long)).toBe(false);
      expect(ones.test(`${long}!`)).toBe(true);
    });

    it('many distinct names against one glob', () => {
      const glob = compileGlob('*[0-9]*[0-9]*.log', { caseInsensitive: true });
      let hits = 0;
      for (let i = 0; i < 20_000; i++) if (glob.test(`${String.fromCharCode(0x4e00 + (i % 5000))}${i}-x${i % 3 === 0 ? '.LOG' : '.txt'}`)) hits++;
      expect(hits).toBe(Array.from({ length: 20_000 }, (_, i) => i).filter((i) => i % 3 === 0 && i >= 10).length);
    });

    it('gives the same answers when its state cache is tiny and keeps starting over', () => {
      const random = seeded(7);
      for (const source of ['*a*b?{c,[d-f]}**/x*', `${'*a'.repeat(20)}*b`, '{a,{b,{c,*}}}/**/[!a]']) {
        const roomy = new GlobAutomaton(parseGlob(source));
        const cramped = new GlobAutomaton(parseGlob(source), undefined, { states: 2, ids: 4, transitions: 3 });
        for (let t = 0; t < 500; t++) {
          const text = Array.from({ length: Math.floor(random() * 60) }, () => 'abcdefx/'[Math.floor(random() * 8)]).join('');
          expect(cramped.matches(text), `${source} against ${text}`).toBe(roomy.matches(text));
        }
      }
    });
  });

  it('agrees with the former RegExp translation on the dialect both share (2,000 random globs and texts)', () => {
    const random = seeded(18);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    const atom = (inGroup: boolean): string => {
      const roll = random();
      if (roll < 0.3) return pick(['a', 'b', '.', '/']);
      if (roll < 0.45) return '*';
      if (roll < 0.55) return '**/';
      if (roll < 0.65) return '?';
      if (roll < 0.8) return `[${pick(['', '!'])}${pick(['a', 'ab', 'a-b', '.b', '/'])}]`;
      if (inGroup) return pick(['a', 'b']);
      return `{${Array.from({ length: 1 + Math.floor(random() * 3) }, () => Array.from({ length: Math.floor(random() * 3) }, () => atom(true)).join('')).join(',')}}`;
    };
    let compared = 0;
    for (let n = 0; n < 2_000; n++) {
      const glob = Array.from({ length: 1 + Math.floor(random() * 5) }, () => atom(false)).join('');
      if (/\*\*\*|\*\*[^/]|\*\*$/.test(glob)) continue; // a run of stars merges differently; not part of the shared dialect
      const reference = formerGlobToRegExp(glob);
      const compiled = compileGlob(glob);
      compared++;
      for (let t = 0; t < 10; t++) {
        const text = Array.from({ length: Math.floor(random() * 7) }, () => pick(['a', 'b', '.', '/'])).join('');
        expect(compiled.test(text), `${glob} against ${text}`).toBe(reference.test(text));
      }
    }
    expect(compared).toBeGreaterThan(1_000); // the skip above must not hollow the comparison out
  });

  it('matches a path or any of its ancestors in one pass', () => {
    const glob = compileGlob('build/**/secret', { caseInsensitive: true });
    expect(glob.testSomePrefix(['build', 'x', 'SECRET', 'inner.txt'])).toBe(true);
    expect(glob.testSomePrefix(['build', 'x', 'secrets'])).toBe(false);
    expect(glob.testSomePrefix(['other', 'build', 'secret'])).toBe(false);
    expect(compileGlob('a/b').testSomePrefix(Array.from({ length: 5_000 }, () => 'a'))).toBe(false);
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

  it('denies a name with a line break under a `**` rule (the RegExp translation let it through)', () => {
    expect(deny.match(['private', 'a\nb'])).toBe('private/**');
    expect(deny.match(['PRIVATE', 'x\ny', 'z'])).toBe('private/**');
  });

  it('stays linear on deep paths with pathological rules', () => {
    const hostile = new DenyList([`${'*'.repeat(400)}x/${'**/'.repeat(100)}y`, `${'*a'.repeat(200)}*b`]);
    const deep = Array.from({ length: 2_000 }, () => 'a'.repeat(20));
    expect(hostile.match(deep)).toBeUndefined();
    expect(hostile.match([...deep.slice(0, 10), 'ax', ...deep.slice(0, 10), 'y'])).toBe(`${'*'.repeat(400)}x/${'**/'.repeat(100)}y`);
    expect(hostile.match([`${'a'.repeat(200)}b`])).toBe(`${'*a'.repeat(200)}*b`);
  });
});

/** A small deterministic PRNG (mulberry32), so a failure is reproducible. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The translation path-glob.ts used before it became an automaton, kept as a reference for the shared dialect (small inputs only: it backtracks). */
function formerGlobToRegExp(glob: string): RegExp {
  let out = '';
  let inGroup = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        if (glob[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      body = body.replace(/[\\\]^]/g, (m) => `\\${m}`);
      out += negate ? `[^/${body}]` : `[${body}]`;
      i = end;
    } else if (c === '{' && !inGroup) {
      inGroup = true;
      out += '(?:';
    } else if (c === ',' && inGroup) out += '|';
    else if (c === '}' && inGroup) {
      inGroup = false;
      out += ')';
    } else out += /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${out}$`);
}
