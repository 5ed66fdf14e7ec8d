/**
 * Text and base64 on Web APIs only (TextEncoder, btoa/atob), so that the code
 * that encodes headers, cursors and OAuth values runs wherever `fetch` does:
 * Node, browsers, workers. Node's Buffer is not a global there.
 */

/**
 * Node's Buffer where there is one: the same results (tested against the Web
 * versions below) from native code, on the server's paths too.
 */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** The UTF-8 bytes of a string. */
export function utf8Bytes(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** A string from UTF-8 bytes; invalid sequences become U+FFFD, as Buffer's toString does. */
export function utf8Text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** How many bytes a string takes in UTF-8, without encoding it (lone surrogates count 3, as U+FFFD). */
export function utf8Length(text: string): number {
  return NodeBuffer ? NodeBuffer.byteLength(text, 'utf8') : utf8LengthWeb(text);
}

/** utf8Length without Buffer (exported for its test). */
export function utf8LengthWeb(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Standard base64 (RFC 4648 §4) with padding. */
export function toBase64(bytes: Uint8Array): string {
  return NodeBuffer ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') : toBase64Web(bytes);
}

/** toBase64 without Buffer (exported for its test). */
export function toBase64Web(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** base64url (RFC 4648 §5) without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Decodes base64 or base64url, padded or not, leniently as Buffer.from(text,
 * 'base64') does: characters outside the alphabet are skipped, decoding stops
 * at the first '='. Never throws.
 */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  if (!NodeBuffer) return fromBase64Web(text);
  const decoded = NodeBuffer.from(text, 'base64');
  return new Uint8Array(decoded.buffer.slice(decoded.byteOffset, decoded.byteOffset + decoded.byteLength) as ArrayBuffer);
}

/** fromBase64 without Buffer (exported for its test). */
export function fromBase64Web(text: string): Uint8Array<ArrayBuffer> {
  const end = text.indexOf('=');
  const clean = (end === -1 ? text : text.slice(0, end))
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .replace(/[^A-Za-z0-9+/]/g, '');
  // A dangling single character carries no whole byte: Buffer drops it.
  const usable = clean.length % 4 === 1 ? clean.slice(0, -1) : clean;
  const binary = atob(usable + '='.repeat((4 - (usable.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Cryptographically random bytes (Web Crypto's getRandomValues: in every runtime, secure context or not). */
export function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** SHA-256 of a string's UTF-8 bytes (Web Crypto; asynchronous there, and needs a secure context in a browser). */
export async function sha256(text: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', utf8Bytes(text)));
}

/** A random identifier (128 bits, base64url): a JWT's jti, a temporary name. */
export function randomId(): string {
  return toBase64Url(randomBytes(16));
}
