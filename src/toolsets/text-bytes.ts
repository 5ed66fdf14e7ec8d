/**
 * Whether bytes are text a model can read: no NUL byte and valid UTF-8. An
 * incomplete character at the very end is fine, because callers pass a
 * sample cut at a size (a file's first bytes, a response cut at its cap)
 * that may end inside one; an invalid byte anywhere else means binary.
 */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    // `stream: true` holds back a trailing partial character instead of failing on it.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
