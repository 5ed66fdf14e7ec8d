import { ToolError } from '../../server/tool.js';
import { ResponseTooLargeError } from './capped-fetch.js';
import { cleanText } from './text.js';

/** What a failed request was about, so the error can name it. */
export interface RequestSubject {
  /** "repository octo/hello", "issue octo/hello#3", "the issue search". */
  target: string;
  /** The token permission the call needs, for 403s: "Issues: write". */
  permission: string;
  tokenEnv: string;
  baseUrl: string;
  timeoutMs: number;
  /** Whether the request carried a token (anonymous reads may be allowed). */
  authenticated: boolean;
}

/**
 * What Octokit throws for an HTTP failure (@octokit/request-error's RequestError, named
 * `HttpError`), read by its shape: toolwright does not load @octokit/request-error (Octokit is an
 * optional peer dependency, and the class of another copy of it would fail an `instanceof`).
 */
interface OctokitRequestError extends Error {
  status: number;
  response?: { headers: Record<string, unknown>; data?: unknown };
}

function isRequestError(err: unknown): err is OctokitRequestError {
  return err instanceof Error && err.name === 'HttpError' && typeof (err as Partial<OctokitRequestError>).status === 'number';
}

/**
 * Turns whatever Octokit threw into a ToolError the model can act on. The
 * token never appears: texts name the environment variable, and GitHub's own
 * messages are echoed only after cleaning and cutting.
 */
export function githubFailure(err: unknown, subject: RequestSubject, timedOut: boolean): ToolError {
  if (timedOut)
    return new ToolError(
      `GitHub did not answer within ${seconds(subject.timeoutMs)} s (${subject.target}). Retry later; if it keeps happening, the server at ${subject.baseUrl} may be overloaded.`,
    );
  if (!isRequestError(err))
    return new ToolError(`The GitHub request failed before an answer arrived (${subject.target}): ${cleanText(String((err as Error)?.message ?? err), 200)}.`);
  if (err.cause instanceof ResponseTooLargeError) {
    return new ToolError(
      `GitHub's answer was larger than ${err.cause.limit} bytes (${subject.target}), so it was not read. Ask for less (a smaller limit or a narrower query).`,
    );
  }
  const response = err.response;
  // Octokit reports a failure to connect as status 500 with no response.
  if (!response)
    return new ToolError(
      `Could not reach the GitHub API at ${subject.baseUrl}: ${cleanText(err.message, 200)}. Check the network and the toolset's baseUrl, then retry.`,
    );

  const status = err.status;
  const headers = response.headers as Record<string, string | number | undefined>;
  const said = githubMessage(response.data);
  const rateLimit = rateLimitText(status, headers, said, subject);
  if (rateLimit) return new ToolError(rateLimit);
  switch (status) {
    case 401:
      return new ToolError(
        subject.authenticated
          ? `GitHub rejected the token in the ${subject.tokenEnv} environment variable (401${said ? `: ${said}` : ''}): it is invalid, expired or revoked. Set ${subject.tokenEnv} to a valid token and restart the server.`
          : `GitHub requires authentication for ${subject.target} (401). Set the ${subject.tokenEnv} environment variable to a token and restart the server.`,
      );
    case 403:
      return new ToolError(forbiddenText(headers, said, subject));
    case 404:
      return new ToolError(
        `GitHub found no ${subject.target}: it does not exist, or the token in ${subject.tokenEnv} cannot see it (private repositories need a token with access to them). Check the ${subject.target.startsWith('issue ') ? 'owner, repository and number' : 'owner and repository names'}.`,
      );
    case 410:
      return new ToolError(
        `GitHub answered 410 Gone for ${subject.target}${said ? `: ${said}` : ''}. Issues may be disabled in this repository, or the issue was deleted.`,
      );
    case 422:
      return new ToolError(
        `GitHub rejected the request as invalid (422) for ${subject.target}${said ? `: ${said}` : ''}.${fieldErrors(response.data)} Correct the arguments and retry.`,
      );
    default:
      if (status >= 500) return new ToolError(`GitHub had a server error (HTTP ${status}) for ${subject.target}. It is usually temporary: retry in a minute.`);
      return new ToolError(`GitHub answered HTTP ${status} for ${subject.target}${said ? `: ${said}` : ''}.`);
  }
}

/**
 * Primary limits: 403/429 with x-ratelimit-remaining 0 and a reset time
 * (epoch seconds). Secondary limits: 403/429 with retry-after (seconds), or
 * a message that says so (docs: "Rate limits for the REST API").
 */
function rateLimitText(status: number, headers: Record<string, string | number | undefined>, said: string, subject: RequestSubject): string | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const remaining = headers['x-ratelimit-remaining'];
  const retryAfter = Number(headers['retry-after']);
  const primary = String(remaining) === '0';
  if (!primary && !Number.isFinite(retryAfter) && !/rate limit/i.test(said) && status !== 429) return undefined;
  const now = Date.now();
  let when: number | undefined;
  if (Number.isFinite(retryAfter) && retryAfter >= 0) when = now + retryAfter * 1000;
  else if (Number.isFinite(Number(headers['x-ratelimit-reset']))) when = Number(headers['x-ratelimit-reset']) * 1000;
  const whenText =
    when === undefined
      ? 'Wait at least a minute before retrying'
      : `Retry after ${new Date(when).toISOString()} (${waitText(when - now)} from now), not sooner`;
  const limit = headers['x-ratelimit-limit'];
  const kind = primary
    ? `GitHub's rate limit is used up${limit !== undefined ? ` (${limit} requests per window)` : ''}`
    : "GitHub's secondary rate limit was hit (too many requests in a short time)";
  const hint = subject.authenticated ? '' : ` Anonymous requests have a much lower limit: set ${subject.tokenEnv} to a token.`;
  return `${kind} for ${subject.target}. ${whenText}.${hint}`;
}

function forbiddenText(headers: Record<string, string | number | undefined>, said: string, subject: RequestSubject): string {
  const sso = headers['x-github-sso'];
  if (sso !== undefined)
    return `The organization requires SAML single sign-on: the token in ${subject.tokenEnv} must be authorized for it (GitHub settings → Personal access tokens → Configure SSO) before it can reach ${subject.target}.`;
  const accepted = headers['x-accepted-github-permissions'];
  const needs = typeof accepted === 'string' && accepted ? cleanText(accepted, 120) : subject.permission;
  return `GitHub refused access to ${subject.target} (403${said ? `: ${said}` : ''}). The token in ${subject.tokenEnv} lacks the permission it needs (${needs}; classic tokens need the "repo" scope for private repositories, "public_repo" for public ones). Grant it, or use another token.`;
}

/** GitHub's 422 body: `errors` of `{ resource, field, code, message? }` (docs: "Client errors"). */
function fieldErrors(data: unknown): string {
  const errors = (data as { errors?: unknown })?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return '';
  const lines = errors.slice(0, 10).map((e) => {
    if (typeof e === 'string') return cleanText(e, 200);
    const { field, code, message, value } = (e ?? {}) as Record<string, unknown>;
    const name = typeof field === 'string' ? field : 'request';
    const why = typeof message === 'string' && message ? message : (CODE_TEXT[String(code)] ?? String(code ?? 'invalid'));
    const shown = typeof value === 'string' || typeof value === 'number' ? ` (value ${JSON.stringify(value)})` : '';
    return cleanText(`${name}: ${why}${shown}`, 300);
  });
  return ` Field errors: ${lines.join('; ')}.`;
}

const CODE_TEXT: Record<string, string> = {
  missing: 'the resource does not exist',
  missing_field: 'is required',
  invalid: 'is invalid',
  already_exists: 'already exists',
  unprocessable: 'cannot be processed',
};

function githubMessage(data: unknown): string {
  const message = typeof data === 'string' ? data : (data as { message?: unknown })?.message;
  return typeof message === 'string' ? cleanText(message, 300) : '';
}

function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(1)));
}

function waitText(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 120) return `${s} s`;
  const m = Math.ceil(s / 60);
  return m < 120 ? `${m} min` : `${Math.ceil(m / 60)} h`;
}
