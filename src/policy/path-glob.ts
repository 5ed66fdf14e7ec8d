/**
 * A small glob dialect for path policy and name searches, compiled to a
 * RegExp once: `*` (any run of characters except `/`), `?` (one character
 * except `/`), `**` (any run, `/` included; `**∕` also matches nothing),
 * `[abc]` / `[!a-z]` classes and `{a,b}` alternatives (not nested).
 * Written here rather than taken from a library because the deny list must
 * behave the same on every Node version we support (path.matchesGlob is
 * experimental on Node 20).
 */
export class GlobSyntaxError extends Error {}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/]/;
const MAX_GLOB_CHARS = 1_000;

export function globToRegExp(glob: string, options: { caseInsensitive?: boolean } = {}): RegExp {
  if (glob.length === 0 || glob.length > MAX_GLOB_CHARS) throw new GlobSyntaxError(`a glob must have 1 to ${MAX_GLOB_CHARS} characters`);
  let out = '';
  let inGroup = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more whole directories; a lone `**` anything.
        if (glob[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) throw new GlobSyntaxError(`unclosed "[" at character ${i + 1}`);
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      // Inside a class only `\`, `]` and `^` need care; `-` keeps its range meaning.
      body = body.replace(/[\\\]^]/g, (m) => `\\${m}`);
      out += negate ? `[^/${body}]` : `[${body}]`;
      i = end;
    } else if (c === '{' && !inGroup) {
      inGroup = true;
      out += '(?:';
    } else if (c === ',' && inGroup) {
      out += '|';
    } else if (c === '}' && inGroup) {
      inGroup = false;
      out += ')';
    } else {
      out += REGEX_SPECIAL.test(c) ? `\\${c}` : c;
    }
  }
  if (inGroup) throw new GlobSyntaxError('unclosed "{"');
  return new RegExp(`^${out}$`, options.caseInsensitive ? 'i' : '');
}

/** Whether `text` uses any glob syntax (otherwise callers may treat it as a plain substring). */
export function hasGlobSyntax(text: string): boolean {
  return /[*?[{]/.test(text);
}
