import { plainFetch } from '../../io/fetch.js';
import { AuthorizationError } from '../errors.js';
import { oauthErrorText, postForm } from './http.js';
import type { AssertionTarget } from './types.js';
import { secureUrl } from './urls.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

export interface IdJagOptions {
  /** The enterprise identity provider's token endpoint. */
  tokenEndpoint: string;
  /** The client's id at the identity provider. */
  clientId: string;
  /** The user's ID token from the identity provider (or a function that gets a current one). */
  idToken: string | (() => string | Promise<string>);
  fetch?: typeof fetch;
}

/**
 * Enterprise-managed authorization (the io.modelcontextprotocol enterprise-managed-authorization
 * extension, SEP-990): the assertion for OAuthOptions `grantType: 'jwt-bearer'` is an ID-JAG the
 * enterprise's identity provider issues for the user's ID token (RFC 8693 token exchange), for
 * exactly the MCP server's authorization server and resource. No browser goes to the MCP
 * server's authorization server.
 *
 *   authorization: { grantType: 'jwt-bearer', clientId, clientSecret,
 *                    assertion: idJagAssertion({ tokenEndpoint, clientId: idpClientId, idToken }) }
 */
export function idJagAssertion(options: IdJagOptions): (target: AssertionTarget) => Promise<string> {
  const endpoint = secureUrl(options.tokenEndpoint, "the identity provider's token endpoint");
  return async (target) => {
    const idToken = typeof options.idToken === 'function' ? await options.idToken() : options.idToken;
    const form = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      audience: target.issuer,
      resource: target.resource,
      subject_token: idToken,
      subject_token_type: ID_TOKEN,
      client_id: options.clientId,
      ...(target.scope ? { scope: target.scope } : {}),
    });
    const { status, body } = await postForm(plainFetch(options.fetch), endpoint, form);
    if (status !== 200 || !body) {
      const refusal = oauthErrorText(body, status);
      throw new AuthorizationError(`the identity provider refused to issue an ID-JAG: ${refusal.text}`, refusal.code);
    }
    if (body.issued_token_type !== ID_JAG || typeof body.access_token !== 'string' || !body.access_token) {
      throw new AuthorizationError('the identity provider did not issue an ID-JAG (issued_token_type must be urn:ietf:params:oauth:token-type:id-jag)');
    }
    return body.access_token;
  };
}
