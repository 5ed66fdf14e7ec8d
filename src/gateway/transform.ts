import type { TaskMode } from '../server/primitives/tasks/policy.js';
import type { JsonSchema, Tool, ToolAnnotations, ToolContext } from '../server/tool.js';
import { prefixed, upstreamSchema, upstreamText } from './names.js';
import type { MountOptions, ToolTransform } from './types.js';

/** An upstream tool as the gateway received it (toolwright's client has checked its shape). */
export interface UpstreamToolShape {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: object;
  icons?: Array<{ src: string; mimeType?: string; sizes?: string[]; theme?: string }>;
  _meta?: Record<string, unknown>;
  /** A legacy listing's `execution` (its `taskSupport`). */
  execution?: unknown;
}

type Call = (args: Record<string, unknown>, ctx: ToolContext) => unknown;

const HINTS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * The tool the gateway registers for an upstream tool: its name (prefixed, or renamed), its
 * description and annotations (the upstream's, sanitized, with the mount's overrides), its input
 * schema less the fixed arguments and with required/optional changed, the scopes and approval the
 * mount asks, and a handler that adds the fixed arguments and calls `call`.
 */
export function transformTool(upstream: UpstreamToolShape, prefix: string | false, options: MountOptions, call: Call): Tool {
  const t = transformFor(options, upstream.name);
  const fixed = t.fixedArguments ?? {};
  const tool: Tool = {
    name: t.name ?? prefixed(prefix, upstream.name),
    description: t.description ?? upstreamText(upstream.description) ?? '',
    inputSchema: reshapeSchema(upstreamSchema(upstream.inputSchema), fixed, t),
    handler: (args: Record<string, unknown>, ctx: ToolContext) => call({ ...args, ...fixed }, ctx),
  };
  const title = t.title ?? upstreamText(upstream.title);
  if (title !== undefined) tool.title = title;
  if (upstream.outputSchema) tool.outputSchema = upstreamSchema(upstream.outputSchema);
  const annotations = { ...hintsOf(upstream.annotations as Record<string, unknown> | undefined), ...t.annotations };
  if (Object.keys(annotations).length) tool.annotations = annotations;
  if (upstream.icons) tool.icons = upstream.icons as Tool['icons'];
  if (upstream._meta) tool._meta = upstream._meta;
  const scopes = t.scopes ?? options.scopes;
  if (scopes) tool.scopes = scopes;
  const approval = t.approval ?? options.approval;
  if (approval) tool.approval = approval;
  const task = taskModeOf(upstream, t);
  if (task !== undefined) tool.task = task;
  if (t.timeoutMs !== undefined) tool.timeoutMs = t.timeoutMs;
  else if (options.timeoutMs !== undefined) tool.timeoutMs = options.timeoutMs + 1_000; // the upstream's own timeout answers first, naming it
  return tool;
}

/**
 * The mount's transform for an upstream tool: an own entry of `tools` only. The name is the
 * upstream's (untrusted): looked up plainly, "constructor" found Object (whose `name`, "Object",
 * became the tool's name) and "toString" a function named so, and those tools left their prefix.
 */
export function transformFor(options: MountOptions, name: string): ToolTransform {
  const tools = options.tools;
  return tools !== undefined && Object.hasOwn(tools, name) ? (tools[name] ?? {}) : {};
}

/** The tool's task mode through the gateway: the transform's, else from the upstream's legacy `execution.taskSupport` (2025-11-25 tasks.mdx "Tool-Level Negotiation"). */
export function taskModeOf(upstream: UpstreamToolShape, t: ToolTransform): TaskMode | undefined {
  if (t.task !== undefined) return t.task;
  const support = (upstream.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === 'required' ? 'required' : support === 'optional' ? 'always' : undefined;
}

/** The known annotation hints only, each of its type (an upstream's annotations are untrusted). */
function hintsOf(annotations: Record<string, unknown> | undefined): ToolAnnotations {
  const out: Record<string, unknown> = {};
  for (const key of HINTS) {
    const v = annotations?.[key];
    if (key === 'title' ? typeof v === 'string' : typeof v === 'boolean') out[key] = key === 'title' ? upstreamText(v as string) : v;
  }
  return out as ToolAnnotations;
}

/** The input schema less the fixed arguments (clients neither see nor set them), with `required` changed as asked. */
function reshapeSchema(schema: Record<string, unknown>, fixed: Record<string, unknown>, t: ToolTransform): JsonSchema {
  const hidden = Object.keys(fixed);
  if (!hidden.length && !t.required && !t.optional) return schema;
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  for (const key of hidden) delete properties[key];
  let required = Array.isArray(schema.required) ? (schema.required as string[]).filter((k) => !hidden.includes(k)) : [];
  for (const key of t.required ?? []) if (!required.includes(key)) required.push(key);
  if (t.optional) required = required.filter((k) => !t.optional!.includes(k));
  const out: JsonSchema = { ...schema, properties };
  if (required.length) out.required = required;
  else delete out.required;
  // A schema that refuses unknown properties would refuse the fixed ones the gateway adds: they are checked upstream.
  return out;
}
