import { ToolError } from '../../server/tool.js';

/**
 * What the model may write into GitHub (issue 18, item 6). Titles, labels
 * and search queries are one line: a line break, tab, terminal escape or
 * other C0/C1 control in them reaches GitHub — and every page, mail and
 * terminal that shows the issue list — as it is. So single-line fields
 * refuse every C0 and C1 control, DEL, and the Unicode line and paragraph
 * separators (U+2028, U+2029). Bodies are Markdown: they keep line feeds,
 * carriage returns and tabs, and refuse the other controls (escape
 * sequences, NUL, bell, …). Format characters (zero-width joiners in emoji,
 * right-to-left marks) are ordinary text in both. Each rule is a schema
 * pattern (the model sees it) and the same check in code (the handler
 * never relies on the schema alone).
 */
const SINGLE_LINE_FORBIDDEN = '\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029';
const MULTI_LINE_FORBIDDEN = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F';

/** JSON Schema pattern of a single-line field. */
export const SINGLE_LINE_PATTERN = `^[^${SINGLE_LINE_FORBIDDEN}]*$`;
/** JSON Schema pattern of a single-line field that must hold a non-space character. */
export const NON_BLANK_SINGLE_LINE_PATTERN = `^(?=.*\\S)[^${SINGLE_LINE_FORBIDDEN}]*$`;
/** JSON Schema pattern of a multi-line field (a Markdown body). */
export const MULTI_LINE_PATTERN = `^[^${MULTI_LINE_FORBIDDEN}]*$`;

const SINGLE_LINE_BAD = new RegExp(`[${SINGLE_LINE_FORBIDDEN}]`, 'u');
const MULTI_LINE_BAD = new RegExp(`[${MULTI_LINE_FORBIDDEN}]`, 'u');

// Keyed by code point, written in hex as the Unicode charts write them.
const NAMES = new Map<number, string>([
  [0x00, 'NUL'],
  [0x07, 'bell'],
  [0x08, 'backspace'],
  [0x09, 'tab'],
  [0x0a, 'line feed'],
  [0x0b, 'vertical tab'],
  [0x0c, 'form feed'],
  [0x0d, 'carriage return'],
  [0x1b, 'escape'],
  [0x7f, 'delete'],
  [0x85, 'next line'],
  [0x2028, 'line separator'],
  [0x2029, 'paragraph separator'],
]);

/** Refuses a control character in a one-line field (title, label, query), naming the field and the character. */
export function checkSingleLine(tool: string, field: string, value: string): void {
  const at = value.search(SINGLE_LINE_BAD);
  if (at < 0) return;
  throw new ToolError(
    `${tool}: "${field}" must be one line of text without control characters; it holds ${describe(value, at)}. Remove line breaks, tabs and other control characters.`,
  );
}

/** Refuses a control character other than line feed, carriage return and tab in a multi-line field (a body). */
export function checkMultiLine(tool: string, field: string, value: string): void {
  const at = value.search(MULTI_LINE_BAD);
  if (at < 0) return;
  throw new ToolError(
    `${tool}: "${field}" may hold line breaks and tabs but no other control characters; it holds ${describe(value, at)}. Remove it (terminal escapes and NULs have no place in an issue).`,
  );
}

function describe(value: string, at: number): string {
  const code = value.charCodeAt(at);
  const name = NAMES.get(code) ?? 'a control character';
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')} (${name}) at character ${at + 1}`;
}
