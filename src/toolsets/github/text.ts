// C0/C1 controls other than tab and newline: upstream text may carry terminal
// escapes or NULs that have no business in a model's context.
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** One line of upstream text for an error message: controls removed, whitespace folded, cut at `max`. */
export function cleanText(text: string, max: number): string {
  const line = text.replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Multi-line upstream text (an issue body) cut at `max` characters, without splitting a surrogate pair. */
export function capText(text: string, max: number): { text: string; truncated: boolean; omitted: number } {
  const clean = text.replace(/\r\n?/g, '\n').replace(CONTROLS, '');
  if (clean.length <= max) return { text: clean, truncated: false, omitted: 0 };
  let end = max;
  const code = clean.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: clean.slice(0, end), truncated: true, omitted: clean.length - end };
}
