import { GlobAutomaton } from './glob-automaton.js';
import { GlobSyntaxError, MAX_GLOB_CHARS, parseGlob } from './glob-parse.js';

/**
 * Globs for path policy (the deny list) and name searches: the dialect is
 * described in glob-parse.ts. A glob is compiled once into a state machine
 * that reads each text once without backtracking (glob-automaton.ts), so no
 * glob — a client's search pattern included — can make matching slower than
 * linear in the text. It is never translated into a RegExp. Written here
 * rather than taken from a library so the deny list behaves the same on
 * every Node version we support (path.matchesGlob is experimental on Node 20).
 */
export { GlobSyntaxError, MAX_GLOB_CHARS };

interface GlobOptions {
  /** Match regardless of case (each character compared in lower case, as String#toLowerCase maps it). */
  caseInsensitive?: boolean;
}

export interface GlobMatcher {
  readonly glob: string;
  /** Whether the whole text matches. */
  test(text: string): boolean;
  /** Whether the glob matches the path made of segments[0..n] for some n >= 1 (the path itself or one of its ancestors). */
  testSomePrefix(segments: readonly string[]): boolean;
}

/** Compiles a glob; throws GlobSyntaxError (with a reason a person can act on) when it is malformed. */
export function compileGlob(glob: string, options: GlobOptions = {}): GlobMatcher {
  const fold = options.caseInsensitive ? (t: string) => t.toLowerCase() : (t: string) => t;
  const automaton = new GlobAutomaton(parseGlob(glob, fold), options.caseInsensitive ? upperCodePoint : undefined);
  return {
    glob,
    test: (text) => automaton.matches(fold(text)),
    testSomePrefix: (segments) => automaton.matchesSomePrefix(options.caseInsensitive ? segments.map(fold) : segments),
  };
}

/** Whether `text` uses any glob syntax (otherwise callers may treat it as a plain substring). */
export function hasGlobSyntax(text: string): boolean {
  return /[*?[{]/.test(text);
}

function upperCodePoint(cp: number): number {
  const up = String.fromCodePoint(cp).toUpperCase();
  return up.length === (cp > 0xffff ? 2 : 1) ? up.codePointAt(0)! : cp;
}
