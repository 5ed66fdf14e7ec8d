/**
 * The size of any error a peer is sent, whatever built it (issue 21 #8: a
 * prompts/get with 300,000 unknown argument names was answered with an
 * 18.5 MiB message). The validators already list only a few problems; this
 * is the defence in depth at the encoding edge, for every error.
 */
export const MAX_ERROR_MESSAGE_CHARS = 4 * 1024;
/** `data` larger than this as JSON is clipped (long strings, long lists), and left out if still too large. */
export const MAX_ERROR_DATA_CHARS = 8 * 1024;

const CLIPPED_STRING = 512;
const CLIPPED_ITEMS = 20;
const CLIPPED_DEPTH = 4;

/** The error object as sent: the message cut to MAX_ERROR_MESSAGE_CHARS, `data` bounded (or left out, which the message then says). */
export function boundedError(error: { code: number; message: string; data?: unknown }): { code: number; message: string; data?: unknown } {
  let message = clip(error.message, MAX_ERROR_MESSAGE_CHARS);
  if (error.data === undefined) return { code: error.code, message };
  const data = boundedData(error.data);
  if (data === undefined) {
    message = clip(`${message} (the error's data was too large to send)`, MAX_ERROR_MESSAGE_CHARS + 64);
    return { code: error.code, message };
  }
  return { code: error.code, message, data };
}

function boundedData(data: unknown): unknown {
  const json = safeJson(data);
  if (json === undefined) return undefined;
  if (json.length <= MAX_ERROR_DATA_CHARS) return data;
  const clipped = clipValue(data, 0);
  const again = safeJson(clipped);
  return again !== undefined && again.length <= MAX_ERROR_DATA_CHARS ? clipped : undefined;
}

function clipValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return clip(value, CLIPPED_STRING);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= CLIPPED_DEPTH) return Array.isArray(value) ? `[${value.length} items]` : '{…}';
  if (Array.isArray(value)) {
    const items = value.slice(0, CLIPPED_ITEMS).map((v) => clipValue(v, depth + 1));
    return value.length > CLIPPED_ITEMS ? [...items, `… and ${value.length - CLIPPED_ITEMS} more`] : items;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (n++ === CLIPPED_ITEMS) {
      out['…'] = 'more fields left out';
      break;
    }
    out[clip(key, CLIPPED_STRING)] = clipValue((value as Record<string, unknown>)[key], depth + 1);
  }
  return out;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // a cycle, a BigInt: not sendable as it is
  }
}

/** `text` cut to at most `max` characters (not inside a surrogate pair), saying how much was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `… (${text.length - max} more characters)`;
  let end = Math.max(0, max - note.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + note;
}
