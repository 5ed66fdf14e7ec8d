import type { InputResult } from '../../client/inputs/types.js';
import { UsageError } from '../../client/connect/usage-error.js';
import { AuthorizationError } from '../../client/errors.js';
import { STREAMED, type ApiRoutes } from './api-routes.js';
import { parseCallRequest } from './calls.js';
import { ApiError, openJsonLines, optionalObject, optionalString, requiredString } from './http-io.js';
import type { ConnectRequest } from '../api-types.js';

/** Connection, tools, calls and the server's questions: what every console page needs. */
export const coreRoutes = {
  'GET status': async ({ session }) => session.status(),

  'POST connect': async ({ body, session }) => {
    const request = parseConnectRequest(await body());
    try {
      await session.connect({ kind: 'request', request });
    } catch (err) {
      if (err instanceof UsageError) throw new ApiError(400, err.message);
      const login = err instanceof AuthorizationError && (err.oauthError === 'login_required' || err.oauthError === 'insufficient_scope');
      throw new ApiError(502, err instanceof Error ? err.message : String(err), {
        failed: 'connect',
        ...(login ? { login: true, ...(err.scope ? { scope: err.scope } : {}) } : {}),
      });
    }
    return session.status();
  },

  'POST disconnect': async ({ session }) => {
    await session.disconnect();
    return session.status();
  },

  'GET events': async ({ res, session }) => {
    session.listen(openJsonLines(res));
    return STREAMED;
  },

  'GET tools': async ({ session, query }) => ({ tools: await session.requireClient().listTools({ refresh: query.get('refresh') === '1' }) }),

  'POST call': async ({ body, res, calls }) => {
    const request = parseCallRequest(await body());
    await calls.run(request, openJsonLines(res));
    return STREAMED;
  },

  'POST cancel': async ({ body, calls }) => ({ cancelled: calls.cancel(requiredString(await body(), 'callId', 64)) }),

  'POST input': async ({ body, session }) => {
    const given = await body();
    const id = requiredString(given, 'id', 64);
    const result = optionalObject(given, 'result');
    if (!result) throw new ApiError(400, 'result is required');
    if (!session.answer(id, result as unknown as InputResult)) throw new ApiError(410, 'that question is no longer waiting for an answer');
    return { answered: true };
  },
} satisfies ApiRoutes;

export function parseConnectRequest(body: Record<string, unknown>): ConnectRequest {
  const era = optionalString(body, 'era', 16);
  if (era !== undefined && era !== 'auto' && era !== 'modern' && era !== 'legacy') throw new ApiError(400, 'era must be auto, modern or legacy');
  const args = body.args;
  if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a !== 'string'))) throw new ApiError(400, 'args must be an array of strings');
  const request: ConnectRequest = {
    ...(optionalString(body, 'url') !== undefined ? { url: optionalString(body, 'url') } : {}),
    ...(optionalString(body, 'command') !== undefined ? { command: optionalString(body, 'command') } : {}),
    ...(optionalString(body, 'server', 256) !== undefined ? { server: optionalString(body, 'server', 256) } : {}),
    ...(optionalString(body, 'cwd', 4096) !== undefined ? { cwd: optionalString(body, 'cwd', 4096) } : {}),
    ...(args !== undefined ? { args: args as string[] } : {}),
    ...(era !== undefined ? { era: era as ConnectRequest['era'] } : {}),
  };
  const headers = stringRecord(body, 'headers');
  const env = stringRecord(body, 'env');
  if (headers) request.headers = headers;
  if (env) request.env = env;
  return request;
}

function stringRecord(body: Record<string, unknown>, key: string): Record<string, string> | undefined {
  const value = optionalObject(body, key);
  if (!value) return undefined;
  for (const [name, v] of Object.entries(value)) if (typeof v !== 'string') throw new ApiError(400, `${key}.${name} must be a string`);
  return value as Record<string, string>;
}
