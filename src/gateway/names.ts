import { sanitize } from '../io/sanitize.js';
import { toolNameProblem } from '../protocol/names.js';

/** Longest description kept from an upstream: a model's context is not the upstream's to fill. */
const MAX_DESCRIPTION_CHARS = 8 * 1024;

/** `<prefix>_<name>`, or the name itself when the upstream is mounted without a prefix. */
export function prefixed(prefix: string | false, name: string): string {
  return prefix === false ? name : `${prefix}_${name}`;
}

/** Why a mount name or prefix cannot be used, if it cannot (the tool name rule, less room for the tool's own name). */
export function prefixProblem(prefix: string): string | undefined {
  if (!/^[A-Za-z0-9.-][A-Za-z0-9_.-]{0,63}$/.test(prefix)) return 'must be 1–64 of [A-Za-z0-9_.-], not starting with "_"';
  return undefined;
}

/** A name through the gateway that breaks the tool name rule (tools.mdx "Tool Names"), said in a sentence. */
export function gatewayNameProblem(name: string): string | undefined {
  return toolNameProblem(name);
}

/**
 * An upstream's text as the gateway passes it on: terminal escapes, bidi overrides and
 * invisible characters removed (io/sanitize.ts), and its length capped. Markup stays text:
 * the gateway speaks JSON, and what shows a description decides how to render it.
 */
export function upstreamText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const clean = sanitize(String(text));
  return clean.length > MAX_DESCRIPTION_CHARS ? `${clean.slice(0, MAX_DESCRIPTION_CHARS)}…` : clean;
}

/** Schema keywords that are prose (JSON Schema annotations a client shows, a model reads). */
const SCHEMA_PROSE = new Set(['title', 'description']);
/** Keywords whose values are data, not subschemas: changed, they would change what is valid. */
const SCHEMA_VALUES = new Set(['const', 'enum', 'default', 'examples']);

/**
 * An upstream's schema with every title and description cleaned as `upstreamText` cleans a tool's
 * description: an argument's description reaches the model too, and invisible text hides there as
 * well as anywhere. Values (`enum`, `const`, `default`, `examples`) are copied as they are. Depth
 * is bounded by the message parser (128 levels); own keys are copied as own (`__proto__` too).
 */
export function upstreamSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(upstreamSchema) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    const clean = SCHEMA_VALUES.has(key) ? value : SCHEMA_PROSE.has(key) && typeof value === 'string' ? upstreamText(value) : upstreamSchema(value);
    Object.defineProperty(out, key, { value: clean, enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}

/** A `*` wildcard pattern (nothing else is special) as a whole-name matcher. */
export function wildcard(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/** Whether `name` (with `tags`) passes an upstream's include/exclude lists. */
export function selected(
  name: string,
  tags: readonly string[],
  filter: { include?: string[]; exclude?: string[]; includeTags?: string[]; excludeTags?: string[] },
): boolean {
  if (filter.include && !filter.include.some((p) => wildcard(p).test(name))) return false;
  if (filter.exclude?.some((p) => wildcard(p).test(name))) return false;
  if (filter.includeTags && !filter.includeTags.some((t) => tags.includes(t))) return false;
  if (filter.excludeTags?.some((t) => tags.includes(t))) return false;
  return true;
}

/** The tags an upstream gives a tool, where it gives any (`_meta.tags`, as FastMCP sends them, or `annotations.tags`). */
export function toolTags(tool: { _meta?: Record<string, unknown>; annotations?: object }): string[] {
  const raw = tool._meta?.tags ?? (tool._meta?.fastmcp as { tags?: unknown } | undefined)?.tags ?? (tool.annotations as { tags?: unknown } | undefined)?.tags;
  return Array.isArray(raw) ? raw.filter((t): t is string => typeof t === 'string').slice(0, 64) : [];
}
