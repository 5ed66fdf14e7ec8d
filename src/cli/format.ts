import type { CallToolResult, ContentBlock, ListedTool } from '../client/types.js';
import { isPlainObject } from '../protocol/content.js';
import { isDestructiveTool } from '../protocol/tool-annotations.js';
import { sanitize } from '../io/sanitize.js';
import { PLAIN, type Style } from './style.js';
import { structuredAddsToText } from './structured-redundancy.js';
import { wrap } from './wrap.js';

const MAX_NAME_COLUMN = 28;
const GAP = '  ';

/**
 * The tools as a two-column table for people: the name, then the wrapped
 * description, parameters and what the annotations say, and the count at
 * the end. Everything the server wrote is sanitized first.
 */
export function formatToolList(tools: ListedTool[], style: Style = PLAIN): string {
  if (tools.length === 0) return 'The server lists no tools.\n';
  const names = tools.map((t) => sanitize(t.name));
  const nameWidth = Math.min(MAX_NAME_COLUMN, Math.max(4, ...names.map((n) => n.length)));
  const cellWidth = Math.max(30, style.width - nameWidth - GAP.length);
  const pad = ' '.repeat(nameWidth + GAP.length);
  const out = [style.bold(`${'TOOL'.padEnd(nameWidth)}${GAP}DESCRIPTION`)];
  tools.forEach((tool, i) => {
    const cell = toolCell(tool, cellWidth, style);
    const name = style.bold(style.cyan(names[i]));
    if (names[i].length > nameWidth) out.push(name, ...cell.map((line) => pad + line));
    else out.push(name + ' '.repeat(nameWidth - names[i].length) + GAP + (cell[0] ?? ''), ...cell.slice(1).map((line) => pad + line));
  });
  out.push('', `${tools.length} tool${tools.length === 1 ? '' : 's'}`);
  return `${out.join('\n')}\n`;
}

function toolCell(tool: ListedTool, width: number, style: Style): string[] {
  const lines: string[] = [];
  const title = titleOf(tool);
  if (title && title !== tool.name) lines.push(...wrap(oneLine(title), width).map(style.bold));
  if (tool.description) lines.push(...wrap(sanitize(tool.description).trim(), width));
  lines.push(...wrap(`params: ${paramsSummary(tool.inputSchema)}`, width).map(style.dim));
  const hints = effectiveHints(tool.annotations).map((h) => (h === 'destructive' ? style.yellow(h) : h));
  if (tool.outputSchema) hints.push('structured output');
  if (hints.length) lines.push(hints.join(style.dim(' · ')));
  return lines;
}

export function titleOf(tool: ListedTool): string | undefined {
  if (typeof tool.title === 'string' && tool.title) return tool.title;
  return typeof tool.annotations?.title === 'string' && tool.annotations.title ? tool.annotations.title : undefined;
}

/** `a: number, b?: string` — required parameters first as declared, optional ones marked with "?". */
export function paramsSummary(schema: Record<string, unknown>): string {
  const props = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const names = Object.keys(props);
  if (names.length === 0) return 'none';
  return names.map((name) => `${sanitize(name)}${required.has(name) ? '' : '?'}: ${typeLabel(props[name])}`).join(', ');
}

export function typeLabel(schema: unknown): string {
  if (!isPlainObject(schema)) return 'any';
  if (Array.isArray(schema.enum))
    return oneLine(
      schema.enum
        .slice(0, 8)
        .map((v) => JSON.stringify(v))
        .join('|') + (schema.enum.length > 8 ? '|…' : ''),
    );
  if (typeof schema.type === 'string') return schema.type === 'array' && isPlainObject(schema.items) ? listOf(typeLabel(schema.items)) : sanitize(schema.type);
  if (Array.isArray(schema.type)) return oneLine(schema.type.join('|'));
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return branches.map(typeLabel).join('|');
  return 'any';
}

/** `string[]`, and `(string|integer)[]` for a list of a union: `string|integer[]` would read as a string or a list of integers. */
function listOf(item: string): string {
  return item.includes('|') ? `(${item})[]` : `${item}[]`;
}

/** What the annotations mean with the spec's defaults applied; openWorld only when the server said so. */
function effectiveHints(annotations: Record<string, unknown> | undefined): string[] {
  const hints: string[] = [];
  if (annotations?.readOnlyHint === true) hints.push('read-only');
  else hints.push(isDestructiveTool(annotations) ? 'destructive' : 'additive');
  if (annotations?.readOnlyHint !== true && annotations?.idempotentHint === true) hints.push('idempotent');
  if (annotations?.openWorldHint === true) hints.push('open-world');
  return hints;
}

interface CallResultFormat {
  style?: Style;
  /** Show the structured content even when the text already carries it (`--structured`). */
  structured?: boolean;
}

/**
 * Text blocks as they are; other blocks as a one-line summary. The
 * structured result is shown once, after them: when a text block was the
 * same JSON (shown in its place), when asked to, or when it adds something
 * the text does not say (no text at all, or values the text never mentions).
 */
export function formatCallResult(result: CallToolResult, options: CallResultFormat = {}): string {
  const style = options.style ?? PLAIN;
  const out: string[] = [];
  const hasStructured = result.structuredContent !== undefined;
  const structured = hasStructured ? JSON.stringify(result.structuredContent) : undefined;
  // For people: base64 and huge strings are elided with their size (--json and --output keep everything).
  const pretty = () => sanitize(JSON.stringify(elideLongStrings(result.structuredContent), null, 2));
  // A text block that is the structured content as JSON is shown once, pretty-printed, at the end.
  let carried = false;
  const texts: string[] = [];
  for (const block of result.content) {
    if (block.type === 'text') {
      if (structured !== undefined && sameJson(block.text, structured)) {
        carried = true;
        continue;
      }
      texts.push(block.text);
      out.push(sanitize(block.text));
    } else {
      out.push(style.dim(formatBlock(block)));
    }
  }
  if (hasStructured && (carried || options.structured || structuredAddsToText(result.structuredContent, texts.join('\n')))) {
    if (out.length && style.color) out.push(style.dim('structured content:'));
    out.push(pretty());
  }
  return out.length ? `${out.join('\n')}\n` : '(no content)\n';
}

/** Strings longer than this are cut for a terminal; base64 data at least MIN_BASE64 long is not shown at all. */
const MAX_SHOWN_STRING = 2_000;
const MIN_BASE64 = 200;
const BASE64 = /^(?:data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,)?[A-Za-z0-9+/]+={0,2}$/;

/**
 * A string as a terminal should show it: base64 data (an image a tool echoes
 * in its structured content) as a note of its decoded size, a huge string
 * cut with the count of what was left out; anything else as it is.
 */
export function shownString(value: string): string {
  if (value.length >= MIN_BASE64 && BASE64.test(value)) {
    const data = value.slice(value.indexOf(',') + 1);
    return `[base64 data, ${size(Math.floor((data.length * 3) / 4))}; not shown: --json shows it, --output saves the result's images, audio and blobs]`;
  }
  if (value.length > MAX_SHOWN_STRING) return `${value.slice(0, MAX_SHOWN_STRING)}… [${value.length - MAX_SHOWN_STRING} more characters; --json shows all]`;
  return value;
}

/** A copy of `value` with every string as shownString makes it (keys too); bounded in depth like JSON itself. */
function elideLongStrings(value: unknown): unknown {
  if (typeof value === 'string') return shownString(value);
  if (Array.isArray(value)) return value.map(elideLongStrings);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[shownString(key)] = elideLongStrings(child);
    return out;
  }
  return value;
}

export function formatBlock(block: ContentBlock): string {
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

export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function oneLine(text: string): string {
  return sanitize(text).replace(/\s+/g, ' ').slice(0, 200);
}
