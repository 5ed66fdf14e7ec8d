/** Thrown when an upstream answer is larger than the toolset agreed to read. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the response is larger than ${limit} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

// Statuses whose Response may not carry a body (fetch spec "null body status").
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch for Octokit that reads at most `maxBytes` of each answer: Octokit
 * itself would buffer and JSON-parse a body of any size. The body is read
 * here, under the same abort signal, and handed on as a fresh Response.
 */
export function cappedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = NULL_BODY.has(response.status) ? null : await readCapped(response, maxBytes);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Reads a body, giving up (and releasing the connection) as soon as it passes `maxBytes`. */
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
