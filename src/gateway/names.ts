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
