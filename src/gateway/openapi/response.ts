import type { ToolResult } from '../../server/tool.js';
import type { Validator } from '../../schema/compile.js';
import { isText } from '../../toolsets/text-bytes.js';
import { withoutSecrets } from '../secret-text.js';
import { isJsonMediaType } from './input-schema.js';
import type { HopResponse } from './outbound.js';

/** Characters of an error body shown to the model: enough to read the API's reason, never a flood. */
const ERROR_EXCERPT = 2_000;
const MAX_PROBLEMS = 5;

export interface ResponseContext {
  /** `GET /pet/{petId}`: the operation, as the document names it. */
  operation: string;
  maxBytes: number;
  /** Present when the tool declares an outputSchema: success bodies must be JSON objects that pass it. */
  validateOutput?: Validator;
}

/**
 * The API's answer as a tool result: 2xx JSON as structuredContent when the tool has an
 * outputSchema (tools.mdx "Structured Content"), other bodies as text, every status of 300 or
 * more an isError result naming the status, with an excerpt of what the API said.
 */
export function toToolResult(response: HopResponse, ctx: ResponseContext): ToolResult {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const text = bodyText(response);
  if (response.status >= 300) {
    const where =
      response.status < 400 && typeof response.headers.location === 'string'
        ? ` (redirects are not followed; it pointed to ${withoutSecrets(response.headers.location.slice(0, 200))})`
        : '';
    // An API's error may quote what it was sent (the configured key among it): the secrets it
    // recognises are cut (secret-text.ts), as from an MCP upstream's errors.
    const excerpt = withoutSecrets(text.length > ERROR_EXCERPT ? `${text.slice(0, ERROR_EXCERPT)}… (cut)` : text);
    return errorResult(`${status} from ${ctx.operation}${where}${excerpt ? `: ${excerpt}` : '.'}`);
  }
  const cut = response.truncated ? `\n(the response was cut at ${ctx.maxBytes} bytes)` : '';
  if (!ctx.validateOutput) return { content: [{ type: 'text', text: text ? `${text}${cut}` : `${status} (no content)` }] };

  if (response.truncated)
    return errorResult(
      `${status} from ${ctx.operation}, but the response is larger than ${ctx.maxBytes} bytes and was cut, so it cannot be read as JSON. Ask for less (a filter or a page size).`,
    );
  if (!isJsonMediaType(contentType(response) || 'application/json') || text === '') {
    return errorResult(
      `${status} from ${ctx.operation} with ${text === '' ? 'no body' : `a ${contentType(response)} body`}, where its documented JSON object was expected.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorResult(`${status} from ${ctx.operation}, but the body is not valid JSON: ${text.slice(0, 200)}`);
  }
  const check = ctx.validateOutput(value);
  if (!check.ok) {
    const problems = check.problems.slice(0, MAX_PROBLEMS).join('; ');
    return errorResult(`${status} from ${ctx.operation}, but the body does not match the API's documented response schema: ${problems}`);
  }
  return { content: [{ type: 'text', text }], structuredContent: value };
}

function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function contentType(response: HopResponse): string {
  const header = response.headers['content-type'];
  return (Array.isArray(header) ? header[0] : (header ?? '')).split(';')[0].trim().toLowerCase();
}

function bodyText(response: HopResponse): string {
  if (response.body.length === 0) return '';
  if (!isText(response.body)) return `(${response.body.length} bytes of ${contentType(response) || 'binary data'}, not shown)`;
  return response.body.toString('utf8');
}
