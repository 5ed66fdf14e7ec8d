import type { Tool } from '../../server/tool.js';
import { GithubClient } from './client.js';
import { createIssueTool } from './create-issue.js';
import { getIssueTool } from './get-issue.js';
import { resolveGithubOptions, type GithubToolsetOptions } from './options.js';
import { searchIssuesTool } from './search-issues.js';

export { GITHUB_DEFAULTS, type GithubToolsetOptions } from './options.js';

/**
 * The github toolset: github_create_issue, github_search_issues and
 * github_get_issue, limited to `options.repos`. Options are checked here, so
 * a bad config fails at start-up with a TypeError naming the option.
 */
export function githubTools(options: GithubToolsetOptions): Tool[] {
  const settings = resolveGithubOptions(options);
  const client = new GithubClient(settings);
  return [createIssueTool(client, settings), searchIssuesTool(client, settings), getIssueTool(client, settings)];
}
