import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isPlainObject } from '../../../protocol/content.js';
import { Method } from '../../../protocol/methods.js';
import { authorizeEntry } from '../../pipeline/authorize.js';
import { ScopedListing } from '../../scoped-listing.js';
import { callerKeyOf, callerOf, type Exchange } from '../../exchange.js';
import type { MethodPhases, MethodResult, MethodTable, Primitive } from '../method-table.js';
import { runRequest } from '../../pipeline/run.js';
import type { Operation } from '../../pipeline/operation.js';
import type { ListingServices } from '../services.js';
import type { ArgsChecked } from '../args-schema.js';
import type { CompiledPrompt } from './compile.js';
import { normalizePrompt } from './messages.js';
import type { PromptReturn } from './prompt.js';
import type { PromptRegistry } from './registry.js';
import { recordedText } from '../../../jsonrpc/recorded.js';

export interface PromptsPrimitiveOptions extends ListingServices {
  prompts: PromptRegistry;
}

/**
 * The Prompts primitive (prompts.mdx): `prompts/list` in cached pages and
 * `prompts/get` with checked arguments, the same in both eras but for the
 * encoding; a prompt may ask the client for input first (an
 * InputRequiredResult for modern clients, a real request for legacy ones).
 */
export class PromptsPrimitive implements Primitive {
  private readonly listing: ScopedListing<CompiledPrompt>;

  constructor(private readonly options: PromptsPrimitiveOptions) {
    const { prompts, subscriptions, pageSize, cacheHints, results, scopePolicy: policy } = options;
    this.listing = new ScopedListing(prompts, 'prompts', pageSize, cacheHints, results, policy, (p) => policy.promptRequirement(p.scope));
    subscriptions.offer('prompts');
    prompts.onChange(() => subscriptions.listChanged('prompts'));
  }

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.prompts = { listChanged: true };
  }

  register(methods: MethodTable): void {
    methods.runs(Method.promptsList, ['modern', 'legacy'], this.listing.run);
    const get = this.get();
    methods.declare(Method.promptsGet, ['modern', 'legacy'], get, { tracked: true });
  }

  /**
   * prompts/get by its phases: the prompt found and authorized (the
   * arguments' shape read), the caller rate-limited, the arguments checked,
   * then the user middleware (it sees `{ name, arguments }` with the checked
   * arguments, and `ctx.prompt`), then the prompt's `get`. A middleware may
   * name another prompt (found, authorized and checked again) or change the
   * arguments (not checked again: its code is the server's).
   */
  private get(): MethodPhases<Asked> {
    return {
      services: this.options,
      target: (op, params) => {
        const { name } = params;
        if (typeof name === 'string') op.target = name;
        const given = params.arguments ?? {};
        op.args = given as Record<string, unknown>;
        if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string');
        const compiled = this.authorized(name, op.exchange);
        checkStrings(compiled, given);
        return { compiled, given, checked: undefined };
      },
      rateKey: Method.promptsGet,
      params: (_op, asked) => {
        // Checked at once unless a Standard Schema parses asynchronously: no promise for the usual prompt.
        const checked = asked.compiled.args.check(asked.given);
        return checked instanceof Promise ? checked.then((c) => checkedParams(asked, c)) : checkedParams(asked, checked);
      },
      shown: (asked) => ({ prompt: asked.compiled.prompt }),
      retarget: (asked, params) => params.name !== asked.compiled.name,
      run: (op, asked, params) => {
        const { compiled: target } = asked;
        let args = asked.checked;
        let bound: unknown = asked.given;
        if (params.arguments !== asked.checked) {
          args = bound = params.arguments;
          op.args = bound as Record<string, unknown>;
        }
        const { prompt } = target;
        op.binding = { tool: `prompt ${target.name}`, args: bound, principal: callerKeyOf(op.exchange) };
        op.openInputs(this.options.requestState);
        op.timeoutMs = prompt.timeoutMs;
        op.upstream = prompt.upstream;
        op.handler = (ctx) => prompt.get(args, ctx);
        op.finish = (value) => this.result(op, target, value as PromptReturn);
        return runRequest(op, this.options);
      },
    };
  }

  /** A prompt's value as the result: its messages, checked (an invalid one is the server's bug, -32603). */
  private result(op: Operation, target: CompiledPrompt, value: PromptReturn): MethodResult {
    const normalized = normalizePrompt(value, target.prompt.description);
    if (normalized.ok) return normalized.result as unknown as MethodResult;
    op.status = 'internal_error';
    this.options.logger.error({ prompt: recordedText(target.name), problem: normalized.problem }, 'a prompt returned an invalid result');
    throw new RpcError(ErrorCode.InternalError, `Internal error: prompt ${target.name} produced an invalid result`);
  }

  /** The prompt named, if the caller may get it: prompts.mdx "Error Handling", an invalid prompt name is -32602. */
  private authorized(name: string, exchange: Exchange): CompiledPrompt {
    const compiled = this.options.prompts.get(name);
    if (!compiled) throw unknownPrompt(name);
    // One the caller may not know of is the same unknown prompt; one it may know of but lacks scopes for, 403.
    const { scopePolicy: policy } = this.options;
    authorizeEntry(policy, policy.promptRequirement(compiled.scope), callerOf(exchange), () => unknownPrompt(name));
    return compiled;
  }
}

/** What a prompts/get asks for: the prompt, its arguments as sent and, once checked, as its `get` takes them. */
interface Asked {
  compiled: CompiledPrompt;
  given: Record<string, string>;
  checked: unknown;
}

function checkStrings(compiled: CompiledPrompt, given: unknown): asserts given is Record<string, string> {
  if (!isPlainObject(given)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object of strings');
  // Far more names than the prompt has: answered from the first few, before any walk over all of them.
  const tooMany = compiled.args.tooManyNames(given);
  if (tooMany) throw invalidArguments(compiled, tooMany);
  if (!allStrings(given)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object of strings');
}

function invalidArguments(compiled: CompiledPrompt, problems: string[]): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Invalid params for prompt ${compiled.name}: ${problems.join('; ')}`);
}

/** The params the middleware sees once the arguments passed their check (kept as the prompt's `get` takes them); -32602 when they did not. */
function checkedParams(asked: Asked, checked: ArgsChecked): Record<string, unknown> {
  const { compiled } = asked;
  if (!checked.ok) throw invalidArguments(compiled, checked.problems);
  asked.checked = checked.value;
  return { name: compiled.name, arguments: asked.checked };
}

/** Whether every value is a string; a loop, not Object.values, which takes ~0.4 s to copy 300,000 arguments (issue 21 #8). */
function allStrings(values: Record<string, unknown>): boolean {
  for (const key in values) if (Object.hasOwn(values, key) && typeof values[key] !== 'string') return false;
  return true;
}

/** The error for a prompt that does not exist, or that the caller may not know of. */
function unknownPrompt(name: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name.length > 128 ? `${name.slice(0, 128)}…` : name}`);
}

export { PromptRegistry } from './registry.js';
export { definePrompt, type Prompt, type PromptArgument, type PromptMessage, type PromptReturn, type PromptContext } from './prompt.js';
export { PromptDefinitionError } from './compile.js';
