import { FileTokenStore } from '../../client/auth/file-token-store.js';
import { diagnoseConnection } from '../../client/doctor/index.js';
import type { EraPreference } from '../../client/types.js';
import { resolveTarget } from '../../client/connect/target.js';
import { UsageError } from '../../client/connect/usage-error.js';
import { storedAuthorization } from '../../client/connect/login.js';
import { sanitize } from '../../io/sanitize.js';
import type { ApiRoutes } from './api-routes.js';
import { parseConnectRequest } from './core-routes.js';
import { ApiError } from './http-io.js';

/**
 * `POST doctor` with the body of `POST connect`: `toolwright doctor` for the page. Every step
 * (URL, DNS, TCP, TLS, HTTP, authorization metadata, token, era, tools; or the command and its
 * handshake) with what to try, texts cleaned as for a terminal.
 */
export const doctorRoutes = {
  'POST doctor': async ({ body, session }) => {
    let resolved: ReturnType<typeof session.resolve>;
    const given = await body();
    const fallback = session.defaultTarget;
    try {
      // No target in the body: the one the console was started with (its failure is on the page).
      resolved =
        given.url === undefined && given.command === undefined && given.server === undefined && fallback?.kind === 'command-line'
          ? { resolved: resolveTarget(fallback.operand, fallback.command, fallback.options), options: fallback.options, label: '' }
          : session.resolve(parseConnectRequest(given));
    } catch (err) {
      if (err instanceof UsageError) throw new ApiError(400, err.message);
      throw err;
    }
    const { resolved: target, options } = resolved;
    // The doctor spawns the command itself and shows its stderr in its own step.
    if ('command' in target) delete (target as { onStderr?: unknown }).onStderr;
    const report = await diagnoseConnection(target, {
      era: options.era as EraPreference,
      stepTimeoutMs: 5_000,
      totalTimeoutMs: 40_000,
      tokenStore: new FileTokenStore(),
      authorization: storedAuthorization(target, { stderr: () => {} }),
    });
    return {
      ok: report.ok,
      steps: report.steps.map((step) => ({
        ...step,
        summary: sanitize(step.summary),
        ...(step.detail ? { detail: sanitize(step.detail) } : {}),
        ...(step.hint ? { hint: sanitize(step.hint) } : {}),
      })),
    };
  },
} satisfies ApiRoutes;
