import { redactArguments } from './redact.js';

/** Largest argument JSON an audit record keeps (16 KiB); the trail is for who did what, not for payloads. */
export const MAX_AUDIT_ARGUMENT_BYTES = 16 * 1024;
/**
 * Longest string value kept whole (1,024 characters): enough for a path, a
 * command line or a query. A file's content or a pasted document keeps its
 * start; and the record of a typical call stays within one SQLite page
 * instead of spilling into overflow pages that each commit must write.
 */
export const MAX_AUDIT_STRING_CHARS = 1024;

/**
 * The arguments as the audit trail stores them: secrets redacted, then
 * serialized. Text over `maxBytes` becomes a valid-JSON marker object
 * `{"$truncated": true, "bytes": N, "preview": "…"}`, so every stored value
 * still parses.
 */
export function auditArgumentsJson(
  args: unknown,
  inputSchema?: Record<string, unknown>,
  maxBytes = MAX_AUDIT_ARGUMENT_BYTES,
  maxStringChars = MAX_AUDIT_STRING_CHARS,
): string {
  let json: string;
  try {
    // Long strings are cut while redacting, so a 1 MiB argument is never serialized in full here.
    json = JSON.stringify(redactArguments(args, inputSchema, { maxStringChars })) ?? 'null';
  } catch {
    // Only an in-process caller can pass values JSON cannot hold (BigInt, cycles).
    return '"[UNSERIALIZABLE]"';
  }
  if (json.length * 3 <= maxBytes) return json; // UTF-8 is at most 3 bytes per UTF-16 unit
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return json;
  // Leave room for the marker's own keys and for escaping the preview inside a string.
  const preview = truncateUtf8(json, Math.max(0, Math.floor(maxBytes / 2) - 64));
  return JSON.stringify({ $truncated: true, bytes, preview });
}

/** At most `maxBytes` of UTF-8, never ending inside a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  const cut = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
  return cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut;
}
