/** Thrown when a response body is larger than the reader agreed to hold. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the response is larger than ${limit} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * Reads a fetch Response body, giving up (and releasing the connection) as
 * soon as it passes `maxBytes`; a declared Content-Length over the limit is
 * refused before anything is read. Peers are hostile: none may make us buffer
 * without bound.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new ResponseTooLargeError(maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The same, decoded as UTF-8 text. */
export async function readCappedText(response: Response, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readCapped(response, maxBytes));
}
