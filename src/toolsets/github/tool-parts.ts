import type { JsonSchema, ToolResult } from '../../server/tool.js';
import { OWNER_PATTERN, REPO_PATTERN } from './allow-list.js';

/** Input properties shared by the tools that address one repository. */
export const OWNER_PROPERTY: JsonSchema = {
  type: 'string',
  pattern: OWNER_PATTERN,
  description: 'Account or organization that owns the repository, e.g. "octocat". Must be in the server\'s allow-list.',
};

export const REPO_PROPERTY: JsonSchema = {
  type: 'string',
  pattern: REPO_PATTERN,
  description: 'Repository name without the owner, e.g. "hello-world".',
};

/**
 * A readable summary first, then the structured value as JSON text (tools.mdx
 * "Structured Content": a tool that returns structuredContent SHOULD also
 * return it serialized in a text block, for clients that ignore it).
 */
export function structuredResult(summary: string, value: Record<string, unknown>): ToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(value) },
    ],
    structuredContent: value,
  };
}
