import { contentBlockProblem, isPlainObject } from '../protocol/content.js';
import { STRUCTURED_JSON } from '../protocol/result.js';
import type { ToolResult } from './tool.js';

export type Normalized = { ok: true; result: ToolResult } | { ok: false; problem: string };

/**
 * Turns whatever a handler returned into a ToolResult:
 * a string → one text block; a `{ content: [...] }` object → itself (checked);
 * undefined → no content; any other value → structuredContent plus its JSON
 * as a text block (spec tools.mdx "Structured Content": SHOULD also return
 * the serialized JSON).
 */
export function normalizeResult(value: unknown): Normalized {
  if (typeof value === 'string') return { ok: true, result: { content: [{ type: 'text', text: value }] } };
  if (value === undefined) return { ok: true, result: { content: [] } };
  if (isToolResult(value)) {
    for (let i = 0; i < value.content.length; i++) {
      const problem = contentBlockProblem(value.content[i]);
      if (problem) return { ok: false, problem: `content[${i}]: ${problem}` };
    }
    if (value.isError !== undefined && typeof value.isError !== 'boolean') return { ok: false, problem: '"isError" must be a boolean' };
    if (value._meta !== undefined && !isPlainObject(value._meta)) return { ok: false, problem: '"_meta" must be an object' };
    return { ok: true, result: value };
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    return { ok: false, problem: `the returned value cannot be serialized as JSON: ${(err as Error).message}` };
  }
  if (text === undefined) return { ok: false, problem: `a handler cannot return a ${typeof value}` };
  // structuredContent is the value as a client will read it (the output schema checks that); its
  // JSON is `text` again, so the result carries it and the encoder does not serialize it twice.
  return { ok: true, result: { content: [{ type: 'text', text }], structuredContent: JSON.parse(text), [STRUCTURED_JSON]: text } as ToolResult };
}

function isToolResult(v: unknown): v is ToolResult {
  return isPlainObject(v) && Array.isArray(v.content) && v.content.every((b) => isPlainObject(b) && typeof b.type === 'string');
}
