import { ErrorCode, RpcError } from '../jsonrpc/errors.js';

/**
 * Opaque pagination cursors. A cursor names the offset of the next page; the
 * "tw1." prefix and strict decoding let us reject anything we did not mint
 * with -32602 (pagination.mdx "Error Handling").
 */
const PREFIX = 'tw1.';

export function encodeCursor(offset: number): string {
  return PREFIX + Buffer.from(String(offset), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== 'string' || !cursor.startsWith(PREFIX) || cursor.length > 64) throw invalidCursor();
  const text = Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8');
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text)) throw invalidCursor();
  const offset = Number(text);
  return offset;
}

function invalidCursor(): RpcError {
  return new RpcError(ErrorCode.InvalidParams, 'Invalid params: invalid cursor; restart listing without a cursor');
}
