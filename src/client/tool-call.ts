import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import { Method } from '../protocol/methods.js';
import type { ClientCapabilities } from '../protocol/meta.js';
import type { Era } from '../protocol/versions.js';
import { withDeadline } from './deadline.js';
import { checkOutput, increasingOnly } from './call-checks.js';
import { InputRequiredError, InputRoundsExceededError, McpRpcError, ProtocolViolationError } from './errors.js';
import { readInputRequired } from './inputs/check.js';
import type { InputResponder } from './inputs/responder.js';
import * as legacyTasks from './legacy-tasks.js';
import { mirrorHeaders } from './mirror-headers.js';
import { readCallResult, readListPage } from './results.js';
import type { RequestOptions } from './session.js';
import * as tasks from './tasks.js';
import { MAX_TOOLS, type CatalogEntry, type ToolCatalog } from './tool-catalog.js';
import type { CallToolOptions, CallToolResult, Progress } from './types.js';

/** What a `tools/call` and a `tools/list` need of the client (client.ts), as tasks.ts and server-surface.ts take theirs. */
export interface ToolCallDeps {
  rpc(method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>>;
  era(): Era | undefined;
  capabilities(): Record<string, unknown> | undefined;
  /** The open session's era and transport kind; throws when the client is not open. */
  wire(): { era: Era | undefined; transportKind: string };
  /** The session's transport kind, if there is a session (open or not). */
  transportKind(): string | undefined;
  /** Lists the tools again (a header mismatch may mean their schemas changed). */
  relist(signal?: AbortSignal): Promise<void>;
  /** The catalog's current entry for a tool. */
  entry(name: string): CatalogEntry | undefined;
  tasks(timeoutMs: number, inputs: InputResponder | undefined): tasks.TaskDeps;
  onCallNotification(n: JsonRpcNotification, onProgress?: (p: Progress) => void): void;
  timeoutMs: number;
  maxInputRounds: number;
}

/** One call's own question handler, and where the ids of its requests are recorded (a legacy server's questions name them). */
export interface CallInputs {
  inputs: InputResponder | undefined;
  onRequestId: ((id: number) => void) | undefined;
  /** This call's client capabilities, when it narrows those declared at connect. */
  capabilities?: ClientCapabilities;
}

/** The checked definition of `name`, listing tools first when needed. */
export async function lookupTool(catalog: ToolCatalog, name: string, relist: () => Promise<unknown>): Promise<CatalogEntry | undefined> {
  if (!catalog.isLoaded || (!catalog.get(name) && !catalog.rejection(name) && !catalog.isFresh())) await relist();
  const rejected = catalog.rejection(name);
  if (rejected) throw new ProtocolViolationError(`tool ${name} cannot be called: the server's definition was rejected (${rejected})`);
  // A tool the server did not list is still sent: the server decides (and answers -32602 if unknown).
  return catalog.get(name);
}

/**
 * A call, round by round: a modern server that needs input first (mrtr.mdx) is answered and
 * the call retried as a new request until it completes; a task the server made of it is
 * followed to its result.
 */
export async function runToolCall(
  deps: ToolCallDeps,
  name: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
  entry: CatalogEntry | undefined,
  { inputs, onRequestId, capabilities }: CallInputs,
): Promise<CallToolResult> {
  const timeoutMs = options.timeoutMs ?? deps.timeoutMs;
  const budget = { deadline: Date.now() + timeoutMs, timeoutMs, signal: options.signal };
  let retry: Record<string, unknown> = {};
  for (let round = 0; ; round++) {
    let result: Record<string, unknown>;
    // A legacy server is asked for a task in params.task (2025-11-25 tasks.mdx) where it and the tool allow one.
    const legacyTask = options.task && deps.era() === 'legacy' ? legacyTasks.legacyTaskParams(deps.capabilities(), entry?.tool) : undefined;
    const sent = { options, deadline: budget.deadline, timeoutMs, inputs, onRequestId, capabilities };
    ({ entry, result } = await sendToolCall(deps, name, { name, arguments: args, ...retry, ...legacyTask }, entry, sent));
    result = await followTask(deps, result, name, options, legacyTask !== undefined, timeoutMs, inputs);
    if (result.resultType !== 'input_required') return checkOutput(name, entry, readCallResult(result));
    if (!inputs) throw new InputRequiredError(Method.toolsCall, result.inputRequests);
    if (round >= deps.maxInputRounds) throw new InputRoundsExceededError(name, deps.maxInputRounds);
    const input = readInputRequired(Method.toolsCall, result);
    const inputResponses = await withDeadline(Method.toolsCall, budget, (signal) => inputs.answerRound(input, name, signal));
    // mrtr.mdx: echo requestState exactly when there was one; answers go to this retry only.
    retry = {
      ...(input.requests.length ? { inputResponses } : {}),
      ...(input.requestState !== undefined ? { requestState: input.requestState } : {}),
    };
  }
}

/** A result that is a task (modern, or a legacy CreateTaskResult) followed to the call's own result. */
function followTask(
  deps: ToolCallDeps,
  result: Record<string, unknown>,
  name: string,
  options: CallToolOptions,
  askedLegacyTask: boolean,
  timeoutMs: number,
  inputs: InputResponder | undefined,
): Promise<Record<string, unknown>> | Record<string, unknown> {
  const how = { ...(typeof options.task === 'object' ? options.task : {}), signal: options.signal };
  if (result.resultType === 'task') return tasks.followTask(deps.tasks(timeoutMs, inputs), result, name, how);
  if (askedLegacyTask && legacyTasks.isCreateTaskResult(result)) return legacyTasks.followLegacyTask(deps.tasks(timeoutMs, inputs), result, name, how);
  return result;
}

/**
 * One `tools/call` request. streamable-http.mdx: on HeaderMismatch, re-list
 * (the schema may have changed) and send it once more with fresh headers.
 */
async function sendToolCall(
  deps: ToolCallDeps,
  name: string,
  params: Record<string, unknown>,
  entry: CatalogEntry | undefined,
  call: { options: CallToolOptions; deadline: number; timeoutMs: number } & CallInputs,
): Promise<{ entry: CatalogEntry | undefined; result: Record<string, unknown> }> {
  const { options } = call;
  const send = (e: CatalogEntry | undefined) => {
    const wire = deps.wire();
    const http = wire.transportKind === 'http';
    const modern = wire.era === 'modern';
    // Progress is per request (progress.mdx): each retry re-runs the tool and counts afresh.
    const onProgress = options.onProgress && increasingOnly(options.onProgress);
    return deps.rpc(Method.toolsCall, params, {
      signal: options.signal,
      timeoutMs: call.timeoutMs,
      deadline: call.deadline,
      acceptInputRequired: modern && call.inputs !== undefined,
      acceptTask: modern && Boolean(options.task),
      extensions: modern && options.task ? tasks.TASKS_EXTENSIONS : undefined,
      capabilities: call.capabilities,
      // A task's progress becomes its status message, shown to onTask: ask for it.
      progress: onProgress !== undefined || (modern && Boolean(options.task)),
      onNotification: (n) => deps.onCallNotification(n, onProgress),
      headers: e && http && modern ? mirrorHeaders(e.headerParams, params.arguments as Record<string, unknown>) : undefined,
      meta: options.meta,
      onRequestId: call.onRequestId,
    });
  };
  try {
    return { entry, result: await send(entry) };
  } catch (err) {
    if (!(err instanceof McpRpcError) || err.code !== ErrorCode.HeaderMismatch || deps.transportKind() !== 'http') throw err;
    await deps.relist(options.signal);
    const fresh = deps.entry(name);
    return { entry: fresh, result: await send(fresh) };
  }
}

/** Every page of `tools/list` into the catalog (at most `maxPages`; a repeated cursor is the server's fault). */
export async function fetchToolPages(deps: ToolCallDeps, catalog: ToolCatalog, maxPages: number, signal?: AbortSignal): Promise<void> {
  const tools: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let ttlMs = Infinity;
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw new ProtocolViolationError(`tools/list: the server returned more than ${maxPages} pages`);
    const result = await deps.rpc(Method.toolsList, cursor === undefined ? {} : { cursor }, { signal });
    const listed = readListPage(result);
    for (const tool of listed.tools) tools.push(tool); // no spread: a page may hold more items than a call has arguments
    ttlMs = Math.min(ttlMs, deps.era() === 'modern' ? listed.ttlMs : 0);
    // Past the catalog's cap, further pages would only cost memory (the catalog warns about the excess).
    if (listed.nextCursor === undefined || tools.length > MAX_TOOLS) break;
    if (seen.has(listed.nextCursor)) throw new ProtocolViolationError('tools/list: the server repeated a pagination cursor');
    seen.add(listed.nextCursor);
    cursor = listed.nextCursor;
  }
  catalog.replace(tools, ttlMs);
}

/** A progress notification's params as a Progress (progress.mdx), or undefined when it carries no finite progress. */
export function readProgress(p: Record<string, unknown> | undefined): Progress | undefined {
  if (!p || typeof p.progress !== 'number' || !Number.isFinite(p.progress)) return undefined;
  const progress: Progress = { progress: p.progress };
  if (typeof p.total === 'number' && Number.isFinite(p.total)) progress.total = p.total;
  if (typeof p.message === 'string') progress.message = p.message;
  return progress;
}
