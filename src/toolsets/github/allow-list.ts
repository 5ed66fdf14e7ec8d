import { ToolError } from '../../server/tool.js';

/** GitHub account names: letters, digits and hyphens, at most 39 characters. */
export const OWNER_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$';
/** Repository names: letters, digits, ".", "_" and "-", at most 100 characters, never "." or "..". */
export const REPO_PATTERN = '^(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$';

const OWNER = new RegExp(OWNER_PATTERN);
const REPO = new RegExp(REPO_PATTERN);

/**
 * The repositories a github tool may reach: exact "owner/name" entries and
 * "owner/*" wildcards. GitHub names are case-insensitive, so is the match.
 * This is the enforcement point; the tools' descriptions only inform.
 */
export class RepoAllowList {
  private constructor(
    private readonly exact: Set<string>,
    private readonly owners: Set<string>,
    private readonly entries: string[],
  ) {}

  static parse(entries: string[]): RepoAllowList {
    if (entries.length === 0) throw new TypeError('github toolset: "repos" is empty; list the repositories the tools may reach ("owner/name" or "owner/*")');
    const exact = new Set<string>();
    const owners = new Set<string>();
    for (const entry of entries) {
      const [owner, name, extra] = typeof entry === 'string' ? entry.split('/') : [];
      if (extra !== undefined || !owner || !OWNER.test(owner) || !name || (name !== '*' && !REPO.test(name))) {
        throw new TypeError(`github toolset: repos entry ${JSON.stringify(entry)} is not "owner/name" or "owner/*"`);
      }
      if (name === '*') owners.add(owner.toLowerCase());
      else exact.add(`${owner}/${name}`.toLowerCase());
    }
    return new RepoAllowList(exact, owners, [...entries]);
  }

  allows(owner: string, repo: string): boolean {
    return this.owners.has(owner.toLowerCase()) || this.exact.has(`${owner}/${repo}`.toLowerCase());
  }

  /** For refusals: what the model may use instead. */
  describe(): string {
    return this.entries.join(', ');
  }

  /**
   * Search qualifiers that scope a query to the allowed repositories
   * (GitHub ORs several repo:/user: qualifiers). Results are filtered again
   * by `repoOfUrl` and `allows`, so the scope never rests on search semantics.
   */
  searchQualifiers(): string[] {
    return [...[...this.owners].map((o) => `user:${o}`), ...[...this.exact].map((r) => `repo:${r}`)];
  }
}

/** The owner and name in a search item's `repository_url` (".../repos/{owner}/{name}"), if it has that shape. */
export function repoOfUrl(url: unknown): { owner: string; repo: string } | undefined {
  if (typeof url !== 'string') return undefined;
  const match = /\/repos\/([^/]+)\/([^/]+)\/?$/.exec(url);
  if (!match || !OWNER.test(match[1]) || !REPO.test(match[2])) return undefined;
  return { owner: match[1], repo: match[2] };
}

/** The refusal every github tool gives for a repository outside the allow-list. */
export function ensureAllowed(allowList: RepoAllowList, tool: string, owner: string, repo: string): void {
  if (allowList.allows(owner, repo)) return;
  throw new ToolError(
    `${tool} may not reach ${owner}/${repo}: this server only allows ${allowList.describe()}. Use one of those repositories, or ask the user to add it to the github toolset's "repos" setting.`,
  );
}
