import type { Octokit } from '@octokit/core';
import { importOptional, requirePackage } from '../../runtime/optional-package.js';
import { ToolError, type ToolContext } from '../../server/tool.js';
import { cappedFetch } from './capped-fetch.js';
import { githubFailure, type RequestSubject } from './errors.js';
import type { GithubSettings } from './options.js';

/** What every request carries: headers (auth) and the abort signal. */
interface RequestExtras {
  headers: Record<string, string>;
  request: { signal: AbortSignal };
}

export interface Target {
  /** Named in error texts: "repository octo/hello", "issue octo/hello#3". */
  target: string;
  /** The token permission needed, named when GitHub answers 403. */
  permission: string;
  /** 'write' always needs a token; 'read' may go without one when anonymousReads is set. */
  access: 'read' | 'write';
}

// Octokit logs deprecation notices through `log`; stdout may be the protocol
// stream (stdio), so nothing is printed.
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const FEATURE = 'the github toolset';

/**
 * One Octokit for the toolset, built once. The token is not baked in: it is
 * read from the environment at each call (so rotating it needs no restart)
 * and sent only in the Authorization header, never logged or echoed.
 *
 * @octokit/core is an optional peer dependency: checked when the toolset is built (missing, a
 * MissingPackageError naming `npm install @octokit/core` stops start-up), loaded by the first call.
 */
export class GithubClient {
  private octokit?: Promise<Octokit>;

  constructor(private readonly settings: GithubSettings) {
    requirePackage('@octokit/core', FEATURE);
  }

  private client(): Promise<Octokit> {
    this.octokit ??= importOptional<typeof import('@octokit/core')>('@octokit/core', FEATURE).then(
      ({ Octokit }) =>
        new Octokit({
          baseUrl: this.settings.baseUrl,
          userAgent: 'toolwright-github-toolset',
          log: silent,
          request: { fetch: cappedFetch(this.settings.maxResponseBytes) },
        }),
    );
    return this.octokit;
  }

  /**
   * Runs one request with the token, a timeout combined with the call's
   * signal, and GitHub's failures turned into actionable ToolErrors.
   */
  async send<T>(ctx: ToolContext, what: Target, run: (octokit: Octokit, extras: RequestExtras) => Promise<{ data: T }>): Promise<T> {
    const token = this.token(what);
    const timeout = AbortSignal.timeout(this.settings.requestTimeoutMs);
    const headers: Record<string, string> = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
    if (token) headers.authorization = `Bearer ${token}`;
    try {
      const response = await run(await this.client(), { headers, request: { signal: AbortSignal.any([ctx.signal, timeout]) } });
      return response.data;
    } catch (err) {
      // A cancelled or timed-out call is answered by the pipeline; no result is read.
      if (ctx.signal.aborted) throw err;
      const subject: RequestSubject = {
        target: what.target,
        permission: what.permission,
        tokenEnv: this.settings.tokenEnv,
        baseUrl: this.settings.baseUrl,
        timeoutMs: this.settings.requestTimeoutMs,
        authenticated: token !== undefined,
      };
      throw githubFailure(err, subject, timeout.aborted);
    }
  }

  private token(what: Target): string | undefined {
    const name = this.settings.tokenEnv;
    const value = this.settings.env[name]?.trim();
    if (!value) {
      if (what.access === 'read' && this.settings.anonymousReads) return undefined;
      throw new ToolError(
        `No GitHub token: the ${name} environment variable is not set on the server. Set it to a token with "${what.permission}" access to the allowed repositories and restart the server; until then the github tools cannot run.`,
      );
    }
    // A header value with spaces or controls would make fetch throw an error that quotes it.
    if (!/^[\x21-\x7e]+$/.test(value))
      throw new ToolError(
        `The ${name} environment variable does not hold a valid GitHub token (it contains spaces or control characters). Fix its value and restart the server.`,
      );
    return value;
  }
}
