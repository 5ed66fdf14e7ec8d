/**
 * A credential that does not authorize the request (RFC 6750 §3.1
 * `invalid_token`): answered with 401 and `error="invalid_token"`. The
 * description is safe to show a client: it names the failed check, never a
 * key, a secret or the token.
 */
export class InvalidTokenError extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'InvalidTokenError';
  }
}

/**
 * The credential could not be checked right now (the authorization server's
 * keys, metadata or introspection endpoint did not answer): 503, retry later.
 * The cause goes to the server log, not to the client.
 */
export class AuthUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthUnavailableError';
  }
}
