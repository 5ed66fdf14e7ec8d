import { contentBlockProblem, isPlainObject, type ContentBlock } from '../protocol/content.js';
import { Method } from '../protocol/methods.js';
import type { Era } from '../protocol/versions.js';
import type { ClientCapabilities } from '../protocol/meta.js';
import { withDeadline } from './deadline.js';
import { InputRequiredError, ProtocolViolationError, ToolClientError } from './errors.js';
import { readInputRequired } from './inputs/check.js';
import type { InputResponder } from './inputs/responder.js';
import type { InputCapability, InputRequestHandler } from './inputs/types.js';
import { readResourceResult, type ReadResourceResult } from './resources.js';
import type { RequestOptions } from './session.js';

/**
 * The client side of resources, prompts and completion: listing every page,
 * reading and getting with the server's questions answered (mrtr.mdx), and
 * checking every shape the untrusted server sends. ToolClient delegates here.
 */
export interface SurfaceDeps {
  rpc(method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>>;
  era(): Era | undefined;
  inputs(): InputResponder | undefined;
  /** This request's client capabilities, when they narrow the declared ones. */
  capabilities?: ClientCapabilities;
  timeoutMs: number;
  maxInputRounds: number;
  maxListPages: number;
  warn(message: string): void;
}

export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ListedResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ListedPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; title?: string; description?: string; required?: boolean }>;
  [key: string]: unknown;
}

export interface GetPromptResult {
  description?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: ContentBlock }>;
  _meta?: Record<string, unknown>;
}

export interface CompleteResult {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export interface SurfaceOptions {
  signal?: AbortSignal;
  /** The whole exchange, answers to the server's questions included (default: the client's timeout). */
  timeoutMs?: number;
  /** Answers what the server asks first, instead of the client's `onInputRequest` (prompts/get, resources/read; as for callTool). */
  onInputRequest?: InputRequestHandler;
  /** Only these of the declared input capabilities hold for this request (as for callTool). */
  inputCapabilities?: readonly InputCapability[];
}

/** Most items a listing keeps: past it further pages would only cost memory. */
const MAX_ITEMS = 10_000;

/** Every page of a list method; items the server got wrong are left out with a warning. */
export async function listAll<T>(
  deps: SurfaceDeps,
  method: string,
  key: string,
  check: (item: Record<string, unknown>) => string | undefined,
  signal?: AbortSignal,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= deps.maxListPages) throw new ProtocolViolationError(`${method}: the server returned more than ${deps.maxListPages} pages`);
    const result = await deps.rpc(method, cursor === undefined ? {} : { cursor }, { signal });
    const list = result[key];
    if (!Array.isArray(list)) throw new ProtocolViolationError(`${method}: the result has no "${key}" array`);
    for (const item of list) {
      const problem = isPlainObject(item) ? check(item) : 'it is not an object';
      if (problem) deps.warn(`${method}: an entry was left out: ${problem}`);
      else if (items.length < MAX_ITEMS) items.push(item as T);
    }
    const next = result.nextCursor;
    if (next !== undefined && next !== null && (typeof next !== 'string' || next.length > 4_096))
      throw new ProtocolViolationError(`${method}: "nextCursor" must be a string`);
    if (typeof next !== 'string' || next === '' || items.length >= MAX_ITEMS) return items;
    if (seen.has(next)) throw new ProtocolViolationError(`${method}: the server repeated a pagination cursor`);
    seen.add(next);
    cursor = next;
  }
}

const str = (v: unknown) => v === undefined || typeof v === 'string';

export function listResources(deps: SurfaceDeps, options: { signal?: AbortSignal } = {}): Promise<ListedResource[]> {
  return listAll(
    deps,
    Method.resourcesList,
    'resources',
    (r) => {
      if (typeof r.uri !== 'string' || typeof r.name !== 'string') return 'a resource needs string "uri" and "name"';
      if (!str(r.title) || !str(r.description) || !str(r.mimeType)) return 'title, description and mimeType must be strings';
      if (r.size !== undefined && !(typeof r.size === 'number' && Number.isFinite(r.size) && r.size >= 0)) return '"size" must be a non-negative number';
      return undefined;
    },
    options.signal,
  );
}

export function listResourceTemplates(deps: SurfaceDeps, options: { signal?: AbortSignal } = {}): Promise<ListedResourceTemplate[]> {
  return listAll(
    deps,
    Method.resourceTemplatesList,
    'resourceTemplates',
    (t) => {
      if (typeof t.uriTemplate !== 'string' || typeof t.name !== 'string') return 'a template needs string "uriTemplate" and "name"';
      if (!str(t.title) || !str(t.description) || !str(t.mimeType)) return 'title, description and mimeType must be strings';
      return undefined;
    },
    options.signal,
  );
}

export function listPrompts(deps: SurfaceDeps, options: { signal?: AbortSignal } = {}): Promise<ListedPrompt[]> {
  return listAll(
    deps,
    Method.promptsList,
    'prompts',
    (p) => {
      if (typeof p.name !== 'string') return 'a prompt needs a string "name"';
      if (!str(p.title) || !str(p.description)) return 'title and description must be strings';
      if (p.arguments !== undefined) {
        if (!Array.isArray(p.arguments)) return '"arguments" must be a list';
        for (const a of p.arguments) {
          if (
            !isPlainObject(a) ||
            typeof a.name !== 'string' ||
            !str(a.description) ||
            !str(a.title) ||
            (a.required !== undefined && typeof a.required !== 'boolean')
          ) {
            return 'each argument needs a string "name" (and string description, boolean required)';
          }
        }
      }
      return undefined;
    },
    options.signal,
  );
}

/** `resources/read`, answering the server's questions when it asks first. */
export async function readResource(deps: SurfaceDeps, uri: string, options: SurfaceOptions = {}): Promise<ReadResourceResult> {
  if (typeof uri !== 'string' || uri === '') throw new TypeError('uri must be a non-empty string');
  return readResourceResult(await withInputRounds(deps, Method.resourcesRead, { uri }, uri, options));
}

/** `prompts/get` with string arguments, answering the server's questions when it asks first. */
export async function getPrompt(deps: SurfaceDeps, name: string, args: Record<string, string> = {}, options: SurfaceOptions = {}): Promise<GetPromptResult> {
  if (typeof name !== 'string' || name === '') throw new TypeError('the prompt name must be a non-empty string');
  if (!isPlainObject(args) || !Object.values(args).every((v) => typeof v === 'string')) throw new TypeError('prompt arguments must be an object of strings');
  const result = await withInputRounds(deps, Method.promptsGet, { name, arguments: args }, name, options);
  if (!Array.isArray(result.messages)) throw new ProtocolViolationError('prompts/get: the result has no "messages" array');
  result.messages.forEach((m, i) => {
    if (!isPlainObject(m) || (m.role !== 'user' && m.role !== 'assistant'))
      throw new ProtocolViolationError(`prompts/get: messages[${i}] needs role "user" or "assistant"`);
    const problem = contentBlockProblem(m.content);
    if (problem) throw new ProtocolViolationError(`prompts/get: messages[${i}].content is invalid: ${problem}`);
  });
  if (result.description !== undefined && typeof result.description !== 'string')
    throw new ProtocolViolationError('prompts/get: "description" must be a string');
  return {
    ...(result.description !== undefined ? { description: result.description as string } : {}),
    messages: result.messages as GetPromptResult['messages'],
    ...(isPlainObject(result._meta) ? { _meta: result._meta } : {}),
  };
}

/** `completion/complete`: suggestions for an argument of a prompt or a resource template. */
export async function complete(
  deps: SurfaceDeps,
  ref: CompletionRef,
  argument: { name: string; value: string },
  context: Record<string, string> = {},
  options: { signal?: AbortSignal } = {},
): Promise<CompleteResult> {
  const result = await deps.rpc(
    Method.complete,
    { ref, argument, ...(Object.keys(context).length ? { context: { arguments: context } } : {}) },
    { signal: options.signal },
  );
  const completion = result.completion;
  if (!isPlainObject(completion) || !Array.isArray(completion.values) || !completion.values.every((v) => typeof v === 'string')) {
    throw new ProtocolViolationError('completion/complete: "completion.values" must be a list of strings');
  }
  return {
    values: completion.values.slice(0, 100) as string[],
    ...(typeof completion.total === 'number' && Number.isFinite(completion.total) ? { total: completion.total } : {}),
    ...(typeof completion.hasMore === 'boolean' ? { hasMore: completion.hasMore } : {}),
  };
}

/** The server kept asking for input past the client's `maxInputRounds`. */
export class InputRoundsExceeded extends ToolClientError {
  constructor(
    readonly method: string,
    readonly target: string,
    readonly maxRounds: number,
  ) {
    super(`${method} ${target}: the server still asked for input after ${maxRounds} rounds of answers; the request was abandoned`);
  }
}

/**
 * Sends a request a modern server may answer with an InputRequiredResult
 * (prompts/get, resources/read): the client's onInputRequest answers, and
 * the request is sent again with the answers and the server's requestState,
 * until it completes. The whole exchange shares one deadline.
 */
async function withInputRounds(
  deps: SurfaceDeps,
  method: string,
  params: Record<string, unknown>,
  target: string,
  options: SurfaceOptions,
): Promise<Record<string, unknown>> {
  const timeoutMs = options.timeoutMs ?? deps.timeoutMs;
  const budget = { deadline: Date.now() + timeoutMs, timeoutMs, signal: options.signal };
  let retry: Record<string, unknown> = {};
  for (let round = 0; ; round++) {
    const responder = deps.inputs();
    const result = await deps.rpc(
      method,
      { ...params, ...retry },
      {
        signal: options.signal,
        timeoutMs,
        deadline: budget.deadline,
        acceptInputRequired: deps.era() === 'modern' && responder !== undefined,
        capabilities: deps.capabilities,
      },
    );
    if (result.resultType !== 'input_required') return result;
    if (!responder) throw new InputRequiredError(method, result.inputRequests);
    if (round >= deps.maxInputRounds) throw new InputRoundsExceeded(method, target, deps.maxInputRounds);
    const input = readInputRequired(method, result);
    const inputResponses = await withDeadline(method, budget, (signal) => responder.answerRound(input, undefined, signal));
    retry = {
      ...(input.requests.length ? { inputResponses } : {}),
      ...(input.requestState !== undefined ? { requestState: input.requestState } : {}),
    };
  }
}
