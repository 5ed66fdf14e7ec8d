import type { UrlPolicy } from '../../policy/urls.js';
import { UrlRefusal } from '../../policy/urls.js';
import { ToolError } from '../../protocol/tool-error.js';
import type { Validator } from '../../schema/compile.js';
import type { Tool, ToolAnnotations, ToolContext, ToolResult } from '../../server/tool.js';
import { describeFetchFailure } from '../../toolsets/http/fetch-errors.js';
import { sendOnce } from './outbound.js';
import type { OperationPlan } from './plan.js';
import { buildRequest } from './request.js';
import { toToolResult } from './response.js';
import { authParts, type AppliedScheme } from './security.js';
import type { JsonObject } from './types.js';

/** Time the pipeline allows beyond the upstream's own timeout, so the handler reports the timeout itself. */
const PIPELINE_MARGIN_MS = 5_000;

export interface OperationTool {
  name: string;
  title?: string;
  description: string;
  plan: OperationPlan;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  validateOutput?: Validator;
  schemes: AppliedScheme[];
}

export interface Endpoint {
  base: URL;
  policy: UrlPolicy;
  headers: Record<string, string>;
  timeoutMs: number;
  maxResponseBytes: number;
}

/**
 * Hints from the method's semantics (RFC 9110 §9.2): safe methods only read; PUT and DELETE
 * are idempotent; PUT, PATCH and DELETE change or remove what exists (destructive, so the
 * server asks the user before each call by default); POST adds.
 */
export function annotationsFor(method: string, title?: string): ToolAnnotations {
  const base = title ? { title } : {};
  switch (method) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
      return { ...base, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    case 'PUT':
    case 'DELETE':
      return { ...base, readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
    case 'PATCH':
      return { ...base, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
    default:
      return { ...base, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
  }
}

export function makeTool(op: OperationTool, endpoint: Endpoint): Tool {
  const tool: Tool = {
    name: op.name,
    description: op.description,
    inputSchema: op.inputSchema,
    annotations: annotationsFor(op.plan.method, op.title),
    timeoutMs: endpoint.timeoutMs + PIPELINE_MARGIN_MS,
    handler: (args: Record<string, unknown>, ctx: ToolContext) => callOperation(op, endpoint, args, ctx),
  };
  if (op.title) tool.title = op.title;
  if (op.outputSchema) tool.outputSchema = op.outputSchema;
  return tool;
}

async function callOperation(op: OperationTool, endpoint: Endpoint, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const operation = `${op.plan.method} ${op.plan.path}`;
  const timeout = AbortSignal.timeout(endpoint.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  try {
    const auth = await authParts(op.schemes, signal);
    const request = buildRequest(op.plan, args, endpoint.base, endpoint.headers, auth);
    const response = await sendOnce(endpoint.policy, { ...request, signal, maxBytes: endpoint.maxResponseBytes });
    // A refused token is dropped, so the next call asks for a fresh one.
    if (response.status === 401) for (const scheme of op.schemes) if (scheme.kind === 'oauth') scheme.token.invalidate();
    return toToolResult(response, { operation, maxBytes: endpoint.maxResponseBytes, validateOutput: op.validateOutput });
  } catch (err) {
    if (err instanceof ToolError) throw err;
    // Cancelled by the client: the pipeline drops the result anyway.
    if (ctx.signal.aborted) throw err;
    if (timeout.aborted)
      throw new ToolError(`${operation} on ${endpoint.base.host} did not answer within ${endpoint.timeoutMs / 1000} s; the request was stopped.`);
    if (err instanceof UrlRefusal) throw new ToolError(err.message);
    if (err instanceof URIError) throw new ToolError('An argument holds text that is not valid Unicode (a lone surrogate); it cannot be put in a URL.');
    const reason = describeFetchFailure(err, endpoint.base.host);
    if (reason) throw new ToolError(`${operation} failed: ${reason}`);
    if ((err as NodeJS.ErrnoException)?.code === 'ERR_INVALID_CHAR') throw new ToolError('A header value holds characters HTTP does not allow.');
    throw err;
  }
}
