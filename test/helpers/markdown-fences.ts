/**
 * Fenced code blocks in Markdown, per CommonMark (0.31, "Fenced code blocks"): an opening fence
 * is 3 or more backticks or tildes (a backtick fence's info string holds no backtick); its block
 * ends at a line of the same character, at least as long, with nothing after it but spaces,
 * or at the end of the document. Indentation and blockquote markers (`>`) before a fence are
 * allowed at any depth, so fences inside list items and quotes count too.
 */
export interface UnclosedFence {
  /** 1-based line of the opening fence. */
  line: number;
  fence: string;
}

const FENCE = /^(`{3,}|~{3,})(.*)$/;

/** The fence left open at the end of `markdown`, if any (an unclosed fence swallows everything after it). */
export function unclosedFence(markdown: string): UnclosedFence | undefined {
  let open: { line: number; char: string; length: number; fence: string } | undefined;
  const lines = markdown.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const match = FENCE.exec(lines[i]!.replace(/^[ \t>]*/, ''));
    if (!match) continue;
    const [, run, rest] = match as unknown as [string, string, string];
    const char = run[0]!;
    if (open) {
      if (char === open.char && run.length >= open.length && rest.trim() === '') open = undefined;
    } else if (!(char === '`' && rest.includes('`'))) {
      open = { line: i + 1, char, length: run.length, fence: run };
    }
  }
  return open && { line: open.line, fence: open.fence };
}
