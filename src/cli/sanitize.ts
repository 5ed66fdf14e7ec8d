// ANSI escape sequences (CSI and OSC), C0/C1 control characters except tab and
// newline, and bidirectional overrides that can disguise text.
const UNSAFE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]?|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a server is untrusted: before it reaches a terminal, anything
 * that could move the cursor, rewrite the screen or reorder characters is
 * removed.
 */
export function sanitize(text: string): string {
  return text.replace(UNSAFE, '');
}
