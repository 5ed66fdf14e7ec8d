import type { ToolClient } from '../client/client.js';
import { CancelledError, ConnectionError, McpRpcError, OutputValidationError, TimeoutError } from '../client/errors.js';
import { CAPABILITY_FOR, INPUT_CAPABILITIES, type InputCapability, type InputRequest, type InputResult } from '../client/inputs/types.js';
import type { CallToolResult } from '../client/types.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import type { ConcurrencyGate } from '../policy/concurrency.js';
import { RELATED_TASK } from '../server/primitives/tasks/legacy.js';
import type { ElicitSchema, ToolContext, ToolResult } from '../server/tool.js';
import { upstreamText } from './names.js';
import { withoutSecrets } from './secret-text.js';
import { describe } from './upstream-link.js';

/** What a relayed call needs of its upstream's mount. */
export interface RelayTarget {
  name: string;
  client(): ToolClient | undefined;
  /** Why it is down, when it is. */
  downBecause(): string | undefined;
  lost(client: ToolClient, why: string): void;
  gate: ConcurrencyGate;
  timeoutMs: number;
  /** The calls in flight, so that a log message of the upstream reaches the caller when only one could have caused it. */
  inFlight: Set<ToolContext>;
  /** Upstream URIs in results made into the gateway's (resource_link, embedded resources). */
  mapUri(uri: string): string;
}

/**
 * Calls `tool` on the upstream for one downstream call: its signal cancels the upstream request
 * (toolwright's client sends notifications/cancelled with the request id IT used upstream), its
 * progress is passed on one to one, and what the upstream asks mid-call (elicitation, sampling,
 * roots) is asked of this call's own client through the handler context. Every failure is an
 * isError result naming the upstream; nothing waits longer than the upstream's timeoutMs (for
 * a task-capable tool, `asTask`: each request to the upstream; its task runs until it ends).
 */
export async function relayCall(target: RelayTarget, tool: string, args: Record<string, unknown>, ctx: ToolContext, asTask = false): Promise<ToolResult> {
  const client = target.client();
  if (!client) return unavailable(target.name, target.downBecause());
  const release = target.gate.tryAcquire() ?? (await target.gate.acquire(ctx.signal));
  if (!release) return failure(`upstream "${target.name}" is busy: too many calls are waiting for it; try again shortly`);
  target.inFlight.add(ctx);
  try {
    // The caller's own signal: the client cancels the upstream request when it aborts (an AbortController of our own per call cost CPU and gave nothing).
    const result = await client.callTool(tool, args, {
      signal: ctx.signal,
      timeoutMs: target.timeoutMs,
      onProgress: (p) => ctx.progress(p.progress, p.total, p.message === undefined ? undefined : upstreamText(p.message)),
      // A modern caller answers in a later round: its context stops this run (ctx.signal), which cancels the upstream call.
      onInputRequest: (request) => askCaller(request, ctx),
      inputCapabilities: callerInputs(ctx),
      // A task-capable tool runs as a task upstream too; the client follows it to its result (and cancels it on abort).
      ...(asTask ? { task: true } : {}),
    });
    return passOn(result, (uri) => target.mapUri(uri));
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const missing = missingCapabilityOf(err);
    // The upstream needs a capability the caller lacks (it saw only the caller's): the caller gets the same answer a direct call would (SEP-2575).
    if (missing) ctx.requireClientCapability(missing); // throws: the caller lacks it (the upstream saw only the caller's)
    return failureOf(target, client, err);
  } finally {
    target.inFlight.delete(ctx);
    release();
  }
}

/** What asking the caller needs of a tool's, prompt's or resource's context. */
export type Asker = Pick<ToolContext, 'clientCapabilities' | 'elicit' | 'sample' | 'listRoots'>;

/** The input capabilities the caller declared: the upstream is told only of these (it must not ask for what the caller lacks: SEP-2575). */
export function callerInputs(ctx: Asker): InputCapability[] {
  return INPUT_CAPABILITIES.filter((c) => ctx.clientCapabilities[c] !== undefined);
}

/**
 * The upstream's question, asked of the caller (the context knows its era: a request, or an
 * input-required round). A caller that did not declare the capability is not asked: the upstream
 * gets an error answer, as from a client without it, and decides (servers ask for roots unbidden).
 */
export function askCaller(request: InputRequest, ctx: Asker): Promise<InputResult> {
  const capability = CAPABILITY_FOR[request.method];
  if (ctx.clientCapabilities[capability] === undefined) return Promise.reject(new Error(`the client of this call does not support ${capability}`));
  const p = request.params;
  // The upstream's own key, so a modern caller's round names the question as the upstream did.
  const keyed = request.key !== undefined ? { key: request.key } : undefined;
  if (request.method === 'elicitation/create') {
    // URL-mode elicitation names a site for the user to visit: not relayed (a form is).
    if (p.mode === 'url' || typeof p.requestedSchema !== 'object') return Promise.resolve({ action: 'decline' });
    return ctx.elicit(upstreamText(String(p.message ?? '')) ?? '', p.requestedSchema as ElicitSchema, keyed) as Promise<InputResult>;
  }
  if (request.method === 'sampling/createMessage')
    return ctx.sample(samplingForCaller(p) as Parameters<ToolContext['sample']>[0], keyed) as Promise<InputResult>;
  return ctx.listRoots(keyed) as Promise<InputResult>;
}

/**
 * An upstream's sampling request as the caller gets it. `includeContext: "thisServer"` asks for
 * the upstream's own context, but to the caller "this server" is the gateway, every upstream's
 * and the gateway's own: it is dropped (the default, "none"; the value is soft-deprecated,
 * client/sampling.mdx). "allServers" reaches no further through the gateway than directly.
 */
function samplingForCaller(params: Record<string, unknown>): Record<string, unknown> {
  if (params.includeContext !== 'thisServer') return params;
  const { includeContext: _dropped, ...rest } = params;
  return rest;
}

function passOn(result: CallToolResult, mapUri: (uri: string) => string): ToolResult {
  const content = Array.isArray(result.content) ? result.content.map((block) => withGatewayUris(block, mapUri)) : [];
  return {
    content,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError ? { isError: true } : {}),
    ...(result._meta ? { _meta: withoutUpstreamTask(result._meta) } : {}),
  };
}

/**
 * The upstream's `_meta` less its related-task: a task id there names a task of the upstream,
 * which clients never see (a task run through the gateway is the gateway's own, and its answer
 * names that one); a hostile upstream must not pass its task ids off as the gateway's.
 */
function withoutUpstreamTask(meta: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(meta, RELATED_TASK)) return meta;
  const { [RELATED_TASK]: _dropped, ...rest } = meta;
  return rest;
}

/** A resource link or embedded resource names the upstream's URI: clients read it through the gateway. */
function withGatewayUris<B extends { type: string }>(block: B, mapUri: (uri: string) => string): B {
  const b = block as B & { uri?: unknown; resource?: { uri?: unknown } };
  if (b.type === 'resource_link' && typeof b.uri === 'string') return { ...b, uri: mapUri(b.uri) };
  if (b.type === 'resource' && b.resource && typeof b.resource.uri === 'string') return { ...b, resource: { ...b.resource, uri: mapUri(b.resource.uri) } };
  return block;
}

/** The input capability an upstream's -32021 names (one the gateway relays), if it is that error. */
function missingCapabilityOf(err: unknown): InputCapability | undefined {
  if (!(err instanceof McpRpcError) || err.code !== ErrorCode.MissingRequiredClientCapability) return undefined;
  const required = (err.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  if (typeof required !== 'object' || required === null) return undefined;
  return INPUT_CAPABILITIES.find((c) => Object.hasOwn(required, c));
}

function failureOf(target: RelayTarget, client: ToolClient, err: unknown): ToolResult {
  const name = target.name;
  if (err instanceof TimeoutError) return failure(`upstream "${name}" did not answer within ${target.timeoutMs} ms; the call was cancelled there`);
  if (err instanceof CancelledError) return failure(`upstream "${name}": the call was cancelled`);
  if (err instanceof ConnectionError) {
    target.lost(client, describe(err));
    return unavailable(name, clientSafe(describe(err)));
  }
  if (err instanceof OutputValidationError)
    return failure(`upstream "${name}" returned output that does not match its output schema: ${clientSafe(describe(err))}`);
  if (err instanceof McpRpcError) return failure(`upstream "${name}" refused the call: ${clientSafe(describe(err))}`);
  return failure(`upstream "${name}" failed: ${clientSafe(describe(err))}`);
}

export function unavailable(name: string, why: string | undefined): ToolResult {
  const reason = why ? ` (${clientSafe(why)})` : '';
  return failure(`upstream "${name}" is unavailable${reason}; the gateway keeps reconnecting: try again shortly`);
}

function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * What an upstream said, fit for a client: sanitized, one line, without the secrets it quotes
 * (credentials in URLs, labelled values, bearer tokens, known key shapes: secret-text.ts) and
 * without absolute paths (they say where things live here).
 */
export function clientSafe(text: string): string {
  return withoutSecrets(upstreamText(text) ?? '')
    .replace(/(?:[A-Za-z]:)?(?:[\\/][^\s"'\\/:]+){2,}[\\/]?/g, '…')
    .slice(0, 300);
}
