/**
 * The fenced code blocks of a Markdown document, with their info strings and where they start:
 * what test/docs/examples.test.ts checks. Fences are recognised as markdown-fences.ts does
 * (CommonMark: 3 or more backticks or tildes, closed by a run of the same character at least as
 * long); the indentation of a fence inside a list item is removed from its lines.
 */
export interface CodeBlock {
  /** The info string's words: `ts fragment` → ['ts', 'fragment']. */
  info: string[];
  /** The block's text, without its fences. */
  code: string;
  /** 1-based line of the first line of code (the line after the opening fence). */
  line: number;
}

const FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;

export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split(/\r\n|\r|\n/);
  let open: { indent: number; char: string; length: number; info: string[]; start: number; body: string[] } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const match = FENCE.exec(text);
    if (open) {
      if (match && match[2]![0] === open.char && match[2]!.length >= open.length && match[3]!.trim() === '') {
        blocks.push({ info: open.info, code: open.body.join('\n'), line: open.start });
        open = undefined;
      } else {
        open.body.push(text.slice(Math.min(open.indent, text.length - text.trimStart().length)));
      }
    } else if (match && !(match[2]![0] === '`' && match[3]!.includes('`'))) {
      const info = match[3]!.trim().split(/\s+/).filter(Boolean);
      open = { indent: match[1]!.length, char: match[2]![0]!, length: match[2]!.length, info, start: i + 2, body: [] };
    }
  }
  return blocks;
}
