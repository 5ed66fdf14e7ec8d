/**
 * The glob dialect of path policy and name searches, parsed into a small
 * tree that glob-automaton.ts turns into a state machine:
 *
 * - `*` any run of characters except `/`; `?` one character except `/`
 * - `**` (a run of two or more stars) any run, `/` included; followed by `/`
 *   (`**∕`) it matches zero or more whole directories
 * - `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` one character of a class (a negated
 *   class never matches `/`); a `]` right after the opening is a member
 * - `{a,b}` alternatives, which may nest up to MAX_BRACE_DEPTH levels
 *
 * Anything else (`\` included) is itself. Parsing is one pass over the glob
 * and the tree is as large as the glob, never an expansion of its braces.
 */
export class GlobSyntaxError extends Error {}

export const MAX_GLOB_CHARS = 1_000;
const MAX_BRACE_DEPTH = 16;

export interface CharClass {
  negated: boolean;
  /** Members as inclusive code point ranges (a single character is a range of one). */
  ranges: Array<[number, number]>;
}

export type GlobNode =
  | { kind: 'char'; cp: number }
  | { kind: 'one' } // ?
  | { kind: 'class'; cls: CharClass }
  | { kind: 'star' } // *
  | { kind: 'globstar' } // ** not followed by /
  | { kind: 'dirs' } // **/ : zero or more whole directories
  | { kind: 'alt'; alternatives: GlobNode[][] };

/**
 * Parses a glob. `fold` maps each literal character as the matcher will map
 * the text (lower case when matching ignores case), so literals compare equal.
 */
export function parseGlob(glob: string, fold: (text: string) => string = (t) => t): GlobNode[] {
  if (glob.length === 0 || glob.length > MAX_GLOB_CHARS) throw new GlobSyntaxError(`a glob must have 1 to ${MAX_GLOB_CHARS} characters`);
  const cps = Array.from(glob, (ch) => ch.codePointAt(0)!);
  let i = 0;
  const at = (k: number) => (k < cps.length ? String.fromCodePoint(cps[k]) : '');

  const literal = (out: GlobNode[], ch: string) => {
    for (const c of fold(ch)) out.push({ kind: 'char', cp: c.codePointAt(0)! });
  };

  const parseClass = (): CharClass => {
    const open = i;
    i++; // [
    const negated = at(i) === '!' || at(i) === '^';
    if (negated) i++;
    const ranges: Array<[number, number]> = [];
    let first = true;
    while (i < cps.length && (first || at(i) !== ']')) {
      first = false;
      const lo = cps[i];
      if (at(i + 1) === '-' && i + 2 < cps.length && at(i + 2) !== ']') {
        const hi = cps[i + 2];
        if (hi < lo) throw new GlobSyntaxError(`the range "${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)}" at character ${i + 1} is out of order`);
        ranges.push([lo, hi]);
        i += 3;
      } else {
        for (const c of new Set([lo, ...Array.from(fold(String.fromCodePoint(lo)), (x) => x.codePointAt(0)!)])) ranges.push([c, c]);
        i++;
      }
    }
    if (i >= cps.length) throw new GlobSyntaxError(`unclosed "[" at character ${open + 1}`);
    i++; // ]
    return { negated, ranges };
  };

  /** A sequence up to the end, or (inside braces) up to the `,` or `}` that ends this alternative. */
  const parseSequence = (depth: number): GlobNode[] => {
    const out: GlobNode[] = [];
    while (i < cps.length) {
      const ch = at(i);
      if (depth > 0 && (ch === ',' || ch === '}')) break;
      if (ch === '*') {
        let run = 0;
        while (at(i) === '*') {
          run++;
          i++;
        }
        if (run === 1) out.push({ kind: 'star' });
        else if (at(i) === '/') {
          i++;
          // `**/**/` is `**/`: repeating it adds nothing but work.
          if (out.at(-1)?.kind !== 'dirs') out.push({ kind: 'dirs' });
        } else out.push({ kind: 'globstar' });
      } else if (ch === '?') {
        out.push({ kind: 'one' });
        i++;
      } else if (ch === '[') {
        out.push({ kind: 'class', cls: parseClass() });
      } else if (ch === '{') {
        if (depth >= MAX_BRACE_DEPTH) throw new GlobSyntaxError(`"{" groups nest deeper than ${MAX_BRACE_DEPTH} levels`);
        const open = i;
        i++;
        const alternatives: GlobNode[][] = [parseSequence(depth + 1)];
        while (at(i) === ',') {
          i++;
          alternatives.push(parseSequence(depth + 1));
        }
        if (at(i) !== '}') throw new GlobSyntaxError(`unclosed "{" at character ${open + 1}`);
        i++;
        out.push({ kind: 'alt', alternatives });
      } else {
        literal(out, ch);
        i++;
      }
    }
    return out;
  };

  return parseSequence(0);
}
