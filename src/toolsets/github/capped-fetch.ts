import { readCapped } from '../../io/read-capped.js';

export { ResponseTooLargeError } from '../../io/read-capped.js';

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
