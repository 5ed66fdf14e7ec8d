import { describe, expect, it } from 'vitest';
import { jsonForTerminal, sanitize, terminalGuard } from '../../src/io/sanitize.js';

describe('sanitize: server text before a terminal', () => {
  it.each([
    ['window title (OSC 0, BEL)', 'a\x1b]0;title\x07b', 'ab'],
    ['clipboard write (OSC 52, ST)', 'a\x1b]52;c;cHduZWQ=\x1b\\b', 'ab'],
    ['hyperlink (OSC 8)', '\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['clear screen and cursor home (CSI)', 'a\x1b[2J\x1b[Hb', 'ab'],
    ['colour (SGR)', '\x1b[31mred\x1b[0m', 'red'],
    ['private mode CSI', 'a\x1b[?1049hb', 'ab'],
    ['DCS, APC, PM and SOS strings', 'a\x1bP+q544e\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\b', 'ab'],
    ['terminal reset (ESC c) and charset switch', 'a\x1bc\x1b(0b', 'ab'],
    ['8-bit CSI, OSC and ST', 'a\x9b2J\x9d0;t\x9cb', 'a0;tb'],
    ['a lone ESC at the end', 'ab\x1b', 'ab'],
    ['C0 controls, DEL and C1', 'a\x00\x07\x08\x0b\x0c\x7f\x85\x9fb', 'ab'],
    ['a lone CR (overwrites the line); CRLF becomes LF', 'safe\rEVIL\r\nnext', 'safeEVIL\nnext'],
    ['bidi overrides, embeddings, isolates and marks', '\u202ea\u202b\u202c\u202d\u2066b\u2067\u2068\u2069\u200e\u200f\u061c', 'ab'],
    ['invisible characters and tags', 'a\u200b\u2060\u2063\ufeff\u180e\ufff9\u{e0041}\u{e007f}b', 'ab'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\nb\nc'],
  ])('removes %s', (_what, input, expected) => {
    expect(sanitize(input)).toBe(expected);
  });

  it('keeps text, tabs, newlines, the emoji and script joiners', () => {
    const text = 'naïve — 日本語\tcolumn\n👩\u200d💻 \u0645\u200c\u0627';
    expect(sanitize(text)).toBe(text);
  });

  it('leaves no ESC whatever is cut where (a sequence split between two chunks)', () => {
    const hostile = 'x\x1b]52;c;QUJD\x07\x1b[2J\x9b1m\u202ey';
    for (let i = 0; i <= hostile.length; i++) {
      const shown = sanitize(hostile.slice(0, i)) + sanitize(hostile.slice(i));
      expect(shown).not.toMatch(/[\x1b\x9b\x9d\u202e]/);
    }
  });

  it('is linear on a long run of unterminated sequences', () => {
    const text = '\x1b]'.repeat(200_000) + '\x1bP'.repeat(200_000);
    expect(sanitize(text)).toBe('');
  });
});

describe('jsonForTerminal', () => {
  it('is the same JSON, with C1, bidi and invisible characters written as escapes', () => {
    const value = { text: 'a\x1b[2J\x85\u202e\u2028\ufeff\u{e0041}b', n: 1 };
    const json = jsonForTerminal(value);
    expect(JSON.parse(json)).toEqual(value);
    expect(json).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e\u2028\ufeff]|\udb40/);
    expect(json).toContain('\\u202e');
    expect(jsonForTerminal(undefined)).toBe('null');
  });
});

describe('terminalGuard: the last net before a terminal', () => {
  it("keeps the CLI's own colours, erase-line and CR, and removes everything else", () => {
    expect(terminalGuard('\r\x1b[2K\x1b[1m\x1b[36mname\x1b[39m\x1b[22m\n')).toBe('\r\x1b[2K\x1b[1m\x1b[36mname\x1b[39m\x1b[22m\n');
    expect(terminalGuard('a\x1b]52;c;QUJD\x07\x1b[2J\x1b[H\x85\u202eb')).toBe('ab');
  });
});
