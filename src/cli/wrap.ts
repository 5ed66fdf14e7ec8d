/**
 * Wraps plain text (already sanitized) to `width` columns: words move to the
 * next line, a word longer than a line is cut, and the text's own line
 * breaks are kept.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  const w = Math.max(1, width);
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/[ \t]+/)) {
      if (word === '') continue;
      let rest = word;
      while (rest.length > w) {
        if (line) lines.push(line);
        line = '';
        lines.push(rest.slice(0, w));
        rest = rest.slice(w);
      }
      if (!line) line = rest;
      else if (line.length + 1 + rest.length <= w) line += ` ${rest}`;
      else {
        lines.push(line);
        line = rest;
      }
    }
    lines.push(line);
  }
  // Trailing empty lines say nothing.
  while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
