import { compileGlob, type GlobMatcher } from './path-glob.js';

/**
 * Names no tool may read, write, list into or delete by default: secrets a
 * model should never see (dotenv files, private keys, cloud credentials) and
 * git internals (hooks there run code; config may hold tokens).
 */
export const DEFAULT_DENY: readonly string[] = ['.env*', '*.pem', '*.key', 'id_rsa*', 'credentials.json', '.git'];

interface Rule {
  glob: string;
  matcher: GlobMatcher;
  /** A rule without `/` applies to every path segment; one with `/` to the path from the root. */
  anchored: boolean;
}

/**
 * Matches paths (relative to a root, `/`-separated) against deny globs.
 * A path is denied when any of its segments matches an unanchored rule, or
 * when it or any of its ancestors matches an anchored rule: denying a
 * directory denies everything under it. Matching ignores case, because the
 * file system may (macOS, Windows): `.ENV` must not slip past `.env*`. Globs
 * match in time linear in the path (see path-glob.ts), and `**` matches any
 * character, a line break in a file name included.
 */
export class DenyList {
  private readonly rules: Rule[];

  constructor(globs: readonly string[]) {
    this.rules = globs.map((glob) => {
      const trimmed = glob.replace(/^\/+|\/+$/g, '');
      return { glob, matcher: compileGlob(trimmed, { caseInsensitive: true }), anchored: trimmed.includes('/') };
    });
  }

  /** The glob that denies `segments` (a path relative to its root), or undefined when it is allowed. */
  match(segments: readonly string[]): string | undefined {
    for (const rule of this.rules) {
      if (rule.anchored) {
        // One pass over the path, checked at each segment's end: linear in its length, not its depth times its length.
        if (rule.matcher.testSomePrefix(segments)) return rule.glob;
      } else if (segments.some((s) => rule.matcher.test(s))) {
        return rule.glob;
      }
    }
    return undefined;
  }

  get globs(): string[] {
    return this.rules.map((r) => r.glob);
  }
}
