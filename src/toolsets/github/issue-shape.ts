import { isPlainObject } from '../../protocol/content.js';
import { ToolError, type JsonSchema } from '../../server/tool.js';
import { capText } from './text.js';

/** The fields every github tool reports about an issue. */
interface IssueSummary {
  repository: string;
  number: number;
  title: string;
  state: string;
  url: string;
  author: string | null;
  labels: string[];
  comments: number;
  is_pull_request: boolean;
  created_at: string;
  updated_at: string;
}

export const ISSUE_SUMMARY_PROPERTIES: Record<string, JsonSchema> = {
  repository: { type: 'string', description: 'owner/name of the repository.' },
  number: { type: 'integer', description: 'Issue number within the repository.' },
  title: { type: 'string' },
  state: { type: 'string', description: '"open" or "closed".' },
  url: { type: 'string', description: 'The issue page on GitHub.' },
  author: { type: ['string', 'null'], description: 'Login of the author (null for deleted accounts).' },
  labels: { type: 'array', items: { type: 'string' } },
  comments: { type: 'integer', minimum: 0 },
  is_pull_request: { type: 'boolean', description: 'GitHub counts pull requests as issues.' },
  created_at: { type: 'string' },
  updated_at: { type: 'string' },
};

export const ISSUE_SUMMARY_REQUIRED = Object.keys(ISSUE_SUMMARY_PROPERTIES);

type Raw = Record<string, unknown>;

/**
 * Reads GitHub's issue object (REST "issue" schema) defensively: the answer
 * is upstream data, so a missing or mistyped field is a ToolError, never a
 * crash or an output that breaks the outputSchema.
 */
export function toIssueSummary(raw: unknown, repository: string): IssueSummary {
  if (!isPlainObject(raw)) throw malformed('an issue is not an object');
  const number = raw.number;
  if (!Number.isInteger(number) || (number as number) < 1) throw malformed('an issue has no number');
  if (typeof raw.title !== 'string') throw malformed(`issue #${number} has no title`);
  return {
    repository,
    number: number as number,
    title: raw.title,
    state: str(raw.state) ?? 'unknown',
    url: str(raw.html_url) ?? '',
    author: login(raw.user),
    labels: Array.isArray(raw.labels) ? raw.labels.map(labelName).filter((l): l is string => l !== undefined) : [],
    comments: Number.isInteger(raw.comments) && (raw.comments as number) >= 0 ? (raw.comments as number) : 0,
    is_pull_request: isPlainObject(raw.pull_request),
    created_at: str(raw.created_at) ?? '',
    updated_at: str(raw.updated_at) ?? '',
  };
}

/** The issue body, capped; `null` bodies (no description) become "". */
export function issueBody(raw: Raw, maxChars: number): { body: string; body_truncated: boolean; omitted: number } {
  const { text, truncated, omitted } = capText(str(raw.body) ?? '', maxChars);
  return { body: text, body_truncated: truncated, omitted };
}

export function logins(value: unknown): string[] {
  return Array.isArray(value) ? value.map(login).filter((l): l is string => l !== null) : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function malformed(why: string): ToolError {
  return new ToolError(`GitHub's answer did not have the expected shape (${why}). Check that the toolset's baseUrl points at a GitHub REST API.`);
}

function login(user: unknown): string | null {
  return isPlainObject(user) && typeof user.login === 'string' ? user.login : null;
}

// Labels come as objects ({ name, color, ... }) and, in some payloads, as plain names.
function labelName(label: unknown): string | undefined {
  if (typeof label === 'string') return label;
  return isPlainObject(label) && typeof label.name === 'string' ? label.name : undefined;
}
