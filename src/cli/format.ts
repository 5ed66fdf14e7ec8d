import type { CallToolResult, ContentBlock, ListedTool } from '../client/types.js';
import { isPlainObject } from '../protocol/content.js';
import { sanitize } from './sanitize.js';

/** Human-readable listing: name (title), description, parameters, hints. */
export function formatToolList(tools: ListedTool[]): string {
  if (tools.length === 0) return 'The server lists no tools.\n';
  return tools.map(formatTool).join('\n');
}

function formatTool(tool: ListedTool): string {
  const title = tool.title ?? (typeof tool.annotations?.title === 'string' ? tool.annotations.title : undefined);
  const lines = [sanitize(tool.name) + (title ? `  (${oneLine(title)})` : '')];
  if (tool.description) lines.push(...sanitize(tool.description).trim().split('\n').map((l) => `  ${l}`));
  lines.push(`  params: ${paramsSummary(tool.inputSchema)}`);
  const hints = hintsOf(tool.annotations);
  if (hints) lines.push(`  hints: ${hints}`);
  if (tool.outputSchema) lines.push('  returns: structured output');
  return `${lines.join('\n')}\n`;
}

/** `a: number, b?: string` — required parameters first as declared, optional ones marked with "?". */
export function paramsSummary(schema: Record<string, unknown>): string {
  const props = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const names = Object.keys(props);
  if (names.length === 0) return 'none';
  return names.map((name) => `${sanitize(name)}${required.has(name) ? '' : '?'}: ${typeLabel(props[name])}`).join(', ');
}

function typeLabel(schema: unknown): string {
  if (!isPlainObject(schema)) return 'any';
  if (Array.isArray(schema.enum)) return oneLine(schema.enum.slice(0, 8).map((v) => JSON.stringify(v)).join('|') + (schema.enum.length > 8 ? '|…' : ''));
  if (typeof schema.type === 'string') return schema.type === 'array' && isPlainObject(schema.items) ? `${typeLabel(schema.items)}[]` : sanitize(schema.type);
  if (Array.isArray(schema.type)) return oneLine(schema.type.join('|'));
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return branches.map(typeLabel).join('|');
  return 'any';
}

function hintsOf(annotations: Record<string, unknown> | undefined): string {
  if (!annotations) return '';
  const hints: string[] = [];
  if (annotations.readOnlyHint === true) hints.push('read-only');
  if (annotations.destructiveHint === true) hints.push('destructive');
  if (annotations.idempotentHint === true) hints.push('idempotent');
  if (annotations.openWorldHint === true) hints.push('open-world');
  return hints.join(', ');
}

/**
 * Text blocks as they are; other blocks as a one-line summary; the
 * structured result pretty-printed (text blocks that merely repeat it as
 * JSON are not printed twice).
 */
export function formatCallResult(result: CallToolResult): string {
  const out: string[] = [];
  const structured = result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
  for (const block of result.content) {
    if (block.type === 'text' && structured !== undefined && sameJson(block.text, structured)) continue;
    out.push(formatBlock(block));
  }
  if (structured !== undefined) out.push(sanitize(JSON.stringify(result.structuredContent, null, 2)));
  return out.length ? `${out.join('\n')}\n` : '(no content)\n';
}

function formatBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return sanitize(block.text);
    case 'image':
    case 'audio':
      return `[${block.type}: ${oneLine(block.mimeType)}, ${size(Math.floor((block.data.length * 3) / 4))}]`;
    case 'resource_link':
      return `[link: ${oneLine(block.name)} <${oneLine(block.uri)}>]`;
    case 'resource': {
      const r = block.resource;
      const kind = 'text' in r ? `${r.text.length} characters` : size(Math.floor((r.blob.length * 3) / 4));
      return `[resource: ${oneLine(r.uri)}${r.mimeType ? ` (${oneLine(r.mimeType)})` : ''}, ${kind}]`;
    }
    default:
      return '[unknown content]';
  }
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function oneLine(text: string): string {
  return sanitize(text).replace(/\s+/g, ' ').slice(0, 200);
}
