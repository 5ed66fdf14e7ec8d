import { optionChecks } from '../options.js';
import { RepoAllowList } from './allow-list.js';

/** How the github toolset is configured (all but `repos` have defaults). */
export interface GithubToolsetOptions {
  /**
   * Repositories the tools may touch: "owner/name" or "owner/*" (every
   * repository of that owner). Required and non-empty: the toolset fails
   * closed rather than reaching every repository the token can see.
   */
  repos: string[];
  /** Environment variable holding the token, read at call time (default "GITHUB_TOKEN"). */
  tokenEnv?: string;
  /** REST API base URL (default "https://api.github.com"; GitHub Enterprise: "https://HOST/api/v3"). */
  baseUrl?: string;
  /** Time one GitHub request may take (default 15 000 ms). */
  requestTimeoutMs?: number;
  /** Largest GitHub response read, in bytes (default 8 MiB); larger answers are refused, never buffered. */
  maxResponseBytes?: number;
  /** Characters of an issue body returned by github_get_issue (default 20 000); the rest is cut with a note. */
  maxBodyChars?: number;
  /** Let github_get_issue and github_search_issues run without a token (public repositories only; default false). */
  anonymousReads?: boolean;
  /** Ask the user to approve every github_create_issue call (default false: creating is not destructive). */
  approveCreate?: boolean;
  /** Where the token is read from (default process.env); tests pass their own. */
  env?: Record<string, string | undefined>;
}

/** Options with every default applied, checked once when the toolset is built. */
export interface GithubSettings {
  allowList: RepoAllowList;
  tokenEnv: string;
  baseUrl: string;
  requestTimeoutMs: number;
  maxResponseBytes: number;
  maxBodyChars: number;
  anonymousReads: boolean;
  approveCreate: boolean;
  env: Record<string, string | undefined>;
}

export const GITHUB_DEFAULTS = {
  tokenEnv: 'GITHUB_TOKEN',
  baseUrl: 'https://api.github.com',
  requestTimeoutMs: 15_000,
  maxResponseBytes: 8 * 1024 * 1024,
  maxBodyChars: 20_000,
} as const;

const check = optionChecks('github');

/** Throws a TypeError naming the bad option, so a config mistake fails at start-up, not mid-call. */
export function resolveGithubOptions(options: GithubToolsetOptions): GithubSettings {
  if (!options || !Array.isArray(options.repos)) throw new TypeError('github toolset: "repos" must be a list such as ["owner/name", "owner/*"]');
  const tokenEnv = check.matching('tokenEnv', options.tokenEnv ?? GITHUB_DEFAULTS.tokenEnv, /^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');
  return {
    allowList: RepoAllowList.parse(options.repos),
    tokenEnv,
    // Octokit appends "/repos/..." to the base as text, so GHE's "/api/v3" prefix is kept.
    baseUrl: check.httpBaseUrl('baseUrl', options.baseUrl ?? GITHUB_DEFAULTS.baseUrl, noCredentials),
    requestTimeoutMs: check.positiveInt('requestTimeoutMs', options.requestTimeoutMs ?? GITHUB_DEFAULTS.requestTimeoutMs),
    maxResponseBytes: check.positiveInt('maxResponseBytes', options.maxResponseBytes ?? GITHUB_DEFAULTS.maxResponseBytes),
    maxBodyChars: check.positiveInt('maxBodyChars', options.maxBodyChars ?? GITHUB_DEFAULTS.maxBodyChars),
    anonymousReads: options.anonymousReads ?? false,
    approveCreate: options.approveCreate ?? false,
    env: options.env ?? process.env,
  };
}

// Credentials belong in tokenEnv, read at call time, not in plain text in a config file's URL.
function noCredentials(url: URL): string | undefined {
  return url.username || url.password ? 'must not carry credentials; use tokenEnv' : undefined;
}
