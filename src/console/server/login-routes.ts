import { logIn, serverUrl } from '../../client/connect/login.js';
import { sanitize } from '../../io/sanitize.js';
import { STREAMED, type ApiRoutes } from './api-routes.js';
import { ApiError, openJsonLines, optionalString, requiredString } from './http-io.js';

/** A person signs in within this. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;

/**
 * `POST login {url, scope?}`: the OAuth browser flow of `toolwright login`, from the page. The
 * answer streams `authorize` (where to sign in: the page shows it as a link the person opens),
 * then `logged-in` or `error`. Tokens go to the same store the CLI uses; the page connects again.
 * Closing the page's stream gives up the login.
 */
export const loginRoutes = {
  'POST login': async ({ body, res, session }) => {
    const given = await body();
    let server: string;
    try {
      server = serverUrl(requiredString(given, 'url'));
    } catch (err) {
      throw new ApiError(400, err instanceof Error ? err.message : String(err));
    }
    const scope = optionalString(given, 'scope', 2048);
    const stream = openJsonLines(res);
    const abort = new AbortController();
    stream.onClose(() => abort.abort(new Error('the page gave up the login')));
    const timer = setTimeout(() => abort.abort(new Error('nobody signed in within 5 minutes')), LOGIN_TIMEOUT_MS);
    try {
      const { oauth, tokens } = await logIn(server, scope ? { scope } : {}, {
        version: session.version,
        signal: abort.signal,
        onPrompt: (prompt) => stream.write({ type: 'authorize', url: prompt.url.href, issuer: sanitize(prompt.issuer) }),
        onWarning: (message) => stream.write({ type: 'warning', message: sanitize(message) }),
      });
      stream.write({ type: 'logged-in', server: oauth.server, issuer: sanitize(tokens.issuer), ...(tokens.scope ? { scope: sanitize(tokens.scope) } : {}) });
    } catch (err) {
      stream.write({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    } finally {
      clearTimeout(timer);
      stream.end();
    }
    return STREAMED;
  },
} satisfies ApiRoutes;
