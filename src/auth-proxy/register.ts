import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientError, registerClient } from './clients.js';
import { withinLimit, type FacadeContext } from './context.js';
import { note } from './audit.js';
import { BadBody, readText, sendJson, sendOAuthError } from './http.js';

/** POST /register (RFC 7591), rate-limited per client address: registrations cost storage. */
export async function handleRegister(ctx: FacadeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return sendOAuthError(res, 405, 'invalid_request', 'use POST', { allow: 'POST' });
  if (!withinLimit(ctx, ctx.limits.register, req, res)) return;
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/json') return sendOAuthError(res, 400, 'invalid_client_metadata', 'send the client metadata as application/json');
  let body: unknown;
  try {
    body = JSON.parse(await readText(req));
  } catch (err) {
    return sendOAuthError(res, 400, 'invalid_client_metadata', err instanceof BadBody ? err.message : 'the body is not JSON');
  }
  try {
    const answer = await registerClient(ctx.store, body, ctx.scopesSupported);
    ctx.logger?.info(
      { clientId: answer.client_id, clientName: typeof answer.client_name === 'string' ? answer.client_name.slice(0, 100) : undefined },
      'auth-proxy: client registered',
    );
    // The record names the client and what it registered, never its secret.
    note(res, {
      outcome: 'ok',
      clientId: String(answer.client_id),
      ...(typeof answer.client_name === 'string' ? { clientName: answer.client_name } : {}),
      details: { redirect_uris: answer.redirect_uris, token_endpoint_auth_method: answer.token_endpoint_auth_method },
    });
    sendJson(res, 201, answer);
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    sendOAuthError(res, 400, err.error === 'invalid_client' ? 'invalid_client_metadata' : err.error, err.message);
  }
}
