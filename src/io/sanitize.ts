/**
 * The one place that decides what text from a server may reach a terminal (or the console's page as
 * plain text). It sits in io/, below the client, because client/connect, the CLI and the console all use it.
 * Every CLI path that prints server text (names, descriptions, content,
 * error messages, log and progress messages, form texts, its stderr) passes
 * it through `sanitize`; JSON output goes through `jsonForTerminal`; and the
 * CLI's own terminal writes pass `terminalGuard` as a last net (program.ts).
 *
 * What is removed, and why:
 * - escape sequences, whole: CSI (ESC [ … final: cursor moves, clear screen,
 *   colours), OSC (ESC ] … BEL/ST: window title, OSC 52 clipboard writes,
 *   OSC 8 links), DCS, SOS, PM and APC strings (ESC P/X/^/_ … ST), the 8-bit
 *   CSI (U+009B …), and any other ESC with its intermediates and final byte
 *   (ESC c resets the terminal);
 * - C0 controls but tab and newline (a lone CR lets text overwrite the line
 *   before it; CRLF becomes LF), DEL, and the C1 controls U+0080–U+009F,
 *   which some terminals read as ESC sequences;
 * - bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 *   U+2066–U+2069) and marks (U+200E, U+200F, U+061C), which reorder what
 *   is shown ("Trojan Source"), and invisible characters that hide text or
 *   make two names look alike: zero-width space, word joiner and invisible
 *   operators (U+200B, U+2060–U+2064), the deprecated format controls
 *   (U+206A–U+206F), the BOM/ZWNBSP (U+FEFF), interlinear annotations
 *   (U+FFF9–U+FFFB), the Mongolian vowel separator (U+180E) and Unicode tags
 *   (U+E0000–U+E007F, invisible ASCII look-alikes). The zero-width joiner and
 *   non-joiner (U+200C, U+200D) stay: scripts and emoji need them, and they
 *   move nothing.
 * - U+2028 and U+2029 (line and paragraph separators) become newlines.
 */

const ESCAPE_SEQUENCE =
  // CSI (7- and 8-bit) | OSC to BEL/ST | DCS, SOS, PM, APC strings to ST | any other ESC sequence
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|\x1b[PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|\x1b[ -/]*[0-~]?/
    .source;

/** Single characters that never reach a terminal (see above); tags are astral, hence the `u` flag below. */
const UNSAFE_CHARACTER =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/u.source;

const LINE_SEPARATOR = /\r\n|[\u2028\u2029]/.source;

/** One pass, in this order at each position: an escape sequence whole, a line separator, a single unsafe character. */
const UNSAFE = new RegExp(`(${ESCAPE_SEQUENCE})|(${LINE_SEPARATOR})|${UNSAFE_CHARACTER}`, 'gu');

/**
 * Text from a server is untrusted: before it reaches a terminal, anything
 * that could move the cursor, rewrite the screen or the clipboard, or reorder
 * or hide characters is removed.
 */
export function sanitize(text: string): string {
  return text.replace(UNSAFE, (_match, _escape: string | undefined, separator: string | undefined) => (separator ? '\n' : ''));
}

/**
 * Characters that JSON.stringify leaves raw but a terminal must not get: DEL,
 * C1, bidi controls and the invisible ones above. JSON.stringify already
 * escapes C0 (ESC included) and lone surrogates.
 */
const RAW_IN_JSON = /[\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/**
 * `value` as JSON for output that may be a terminal: the same JSON as
 * JSON.stringify (a parser reads the same data), with every character a
 * terminal would act on or hide written as a \uXXXX escape. They only occur
 * inside strings, where the escape means the very same character.
 */
export function jsonForTerminal(value: unknown, indent: number | undefined = 2): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  return json.replace(RAW_IN_JSON, (c) => (c.length === 2 ? escapeUnit(c.charCodeAt(0)) + escapeUnit(c.charCodeAt(1)) : escapeUnit(c.charCodeAt(0))));
}

function escapeUnit(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The sequences the CLI itself writes to a terminal: colours (SGR, style.ts) and erase-line after CR (progress and task lines). */
const OWN_SEQUENCE = /^\x1b\[[0-9;]*m$|^\x1b\[2K$/;

/**
 * The last net before a terminal, for text the CLI writes there: server text
 * in it was sanitized on its way in; should a path have missed that, this
 * still lets through no escape sequence but the CLI's own colours and
 * erase-line, no control character but tab, newline and CR, and no bidi or
 * invisible character. JSON output stays the same JSON (jsonForTerminal
 * already escaped what this would remove).
 */
export function terminalGuard(text: string): string {
  return text.replace(UNSAFE, (match: string, sequence: string | undefined, separator: string | undefined) => {
    if (sequence) return OWN_SEQUENCE.test(sequence) ? sequence : '';
    if (separator) return separator === '\r\n' ? separator : '\n';
    return match === '\r' ? match : '';
  });
}
