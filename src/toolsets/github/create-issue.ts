import { defineTool, type Tool, type ToolContext } from '../../server/tool.js';
import { ensureAllowed } from './allow-list.js';
import type { GithubClient } from './client.js';
import { checkMultiLine, checkSingleLine, MULTI_LINE_PATTERN, NON_BLANK_SINGLE_LINE_PATTERN, SINGLE_LINE_PATTERN } from './input-text.js';
import { ISSUE_SUMMARY_PROPERTIES, ISSUE_SUMMARY_REQUIRED, toIssueSummary } from './issue-shape.js';
import type { GithubSettings } from './options.js';
import { OWNER_PROPERTY, REPO_PROPERTY, structuredResult } from './tool-parts.js';

const NAME = 'github_create_issue';

export function createIssueTool(client: GithubClient, settings: GithubSettings): Tool {
  return defineTool({
    name: NAME,
    title: 'Create a GitHub issue',
    description:
      'Creates a new issue in a GitHub repository, with a title, an optional Markdown body and optional labels, and returns its number and URL. ' +
      'Use it when the user asks to file, report or track something on GitHub; search with github_search_issues first to avoid duplicates. ' +
      'Side effects: the issue is public to everyone who can see the repository, notifies its watchers, and cannot be deleted by these tools; ' +
      'each call creates another issue (not idempotent). Labels are applied only when the token has push access (GitHub drops them otherwise). ' +
      `Only repositories in the server's allow-list can be written: ${settings.allowList.describe()}.`,
    inputSchema: {
      type: 'object',
      properties: {
        owner: OWNER_PROPERTY,
        repo: REPO_PROPERTY,
        title: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
          pattern: NON_BLANK_SINGLE_LINE_PATTERN,
          description: 'A short summary of the issue on one line (no line breaks, tabs or other control characters), e.g. "Crash when saving an empty file".',
        },
        body: {
          type: 'string',
          maxLength: 65536,
          default: '',
          pattern: MULTI_LINE_PATTERN,
          description:
            'The description in GitHub Markdown: what happens, what was expected, steps to reproduce. Line breaks and tabs are fine; other control characters (terminal escapes, NUL) are refused. Default: empty.',
        },
        labels: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 50, pattern: SINGLE_LINE_PATTERN, description: 'A label name: one line, no control characters.' },
          maxItems: 20,
          uniqueItems: true,
          default: [],
          description: 'Names of labels to apply, e.g. ["bug"]. Default: none.',
        },
      },
      required: ['owner', 'repo', 'title'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        ...ISSUE_SUMMARY_PROPERTIES,
        labels_not_applied: { type: 'array', items: { type: 'string' }, description: 'Requested labels GitHub did not apply (the token lacks push access).' },
      },
      required: [...ISSUE_SUMMARY_REQUIRED, 'labels_not_applied'],
      additionalProperties: false,
    },
    annotations: { title: 'Create a GitHub issue', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    ...(settings.approveCreate ? { approval: 'always' as const } : {}),
    handler: (args: CreateIssueArgs, ctx) => createIssue(client, settings, args, ctx),
  });
}

/** What github_create_issue takes (its input schema, above). */
interface CreateIssueArgs {
  owner: string;
  repo: string;
  title: string;
  body?: string;
  labels?: string[];
}

/** Files the issue, after the allow-list and the text checks, and says which labels GitHub left off. */
async function createIssue(client: GithubClient, settings: GithubSettings, { owner, repo, title, body, labels }: CreateIssueArgs, ctx: ToolContext) {
  ensureAllowed(settings.allowList, NAME, owner, repo);
  const requested: string[] = labels ?? [];
  // The schema patterns say the same; the handler does not rest on them.
  checkSingleLine(NAME, 'title', title);
  requested.forEach((label, i) => {
    checkSingleLine(NAME, `labels[${i}]`, label);
  });
  if (body) checkMultiLine(NAME, 'body', body);
  const data = await client.send(
    ctx,
    { target: `repository ${owner}/${repo}`, permission: 'Issues: write', access: 'write' },
    // Only the fields given are sent, so GitHub's own defaults apply to the rest.
    (octokit, extras) =>
      octokit.request('POST /repos/{owner}/{repo}/issues', {
        owner,
        repo,
        title,
        ...(body ? { body } : {}),
        ...(requested.length ? { labels: requested } : {}),
        ...extras,
      }),
  );
  const summary = toIssueSummary(data, `${owner}/${repo}`);
  const applied = new Set(summary.labels.map((l) => l.toLowerCase()));
  const notApplied = requested.filter((l) => !applied.has(l.toLowerCase()));
  const dropped = notApplied.length ? ` GitHub did not apply the labels ${notApplied.join(', ')} (the token needs push access to set labels).` : '';
  const text = `Created issue ${summary.repository}#${summary.number}: ${summary.title} — ${summary.url}.${dropped}`;
  return structuredResult(text, { ...summary, labels_not_applied: notApplied });
}
