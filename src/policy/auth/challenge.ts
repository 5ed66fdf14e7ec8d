/**
 * `WWW-Authenticate: Bearer …` values (RFC 6750 §3, RFC 9728 §5.1,
 * authorization/index "Error Handling"). Parameter values are quoted
 * strings; our values never hold a quote or a backslash, but they are
 * escaped all the same, and control characters are dropped.
 */
export interface BearerChallenge {
  /** `invalid_request` (400), `invalid_token` (401) or `insufficient_scope` (403); none when no credentials were sent. */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description?: string;
  /** Scopes needed, all of them, in one challenge. */
  scopes?: readonly string[];
  /** The protected resource metadata URL. */
  resourceMetadata?: string;
}

export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error="${challenge.error}"`);
  if (challenge.description) params.push(`error_description="${quote(challenge.description)}"`);
  if (challenge.scopes?.length) params.push(`scope="${quote(challenge.scopes.join(' '))}"`);
  if (challenge.resourceMetadata) params.push(`resource_metadata="${quote(challenge.resourceMetadata)}"`);
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

function quote(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, '\\$&');
}
