import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import { isPlainObject } from '../../../protocol/content.js';
import { Method } from '../../../protocol/methods.js';
import type { Era } from '../../../protocol/versions.js';
import { authorizeEntry } from '../../pipeline/authorize.js';
import { ScopedListing } from '../../scoped-listing.js';
import { callerKeyOf, type Exchange } from '../../exchange.js';
import type { MethodResult, MethodTable, Primitive, RequestFacts } from '../method-table.js';
import { takeRequestPoint } from '../rate-limit.js';
import { runWithInputs } from '../request-context.js';
import type { TrackedRequest } from '../tracked-request.js';
import type { ListingServices } from '../services.js';
import type { CompiledPrompt } from './compile.js';
import { normalizePrompt } from './messages.js';
import type { PromptRegistry } from './registry.js';

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
    methods.both(Method.promptsList, (era) => (request, exchange) => this.listing.page(era, request.params?.cursor, exchange.auth));
    methods.both(Method.promptsGet, (era) => (request, exchange, facts, tracked) => this.get(request, exchange, facts, era, tracked!), { tracked: true });
  }

  private async get(request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts, era: Era, tracked: TrackedRequest): Promise<MethodResult | undefined> {
    const { logger } = this.options;
    let compiled: CompiledPrompt | undefined;
    const outcome = await runWithInputs(request, exchange, era, facts, { codec: this.options.requestState, timeoutMs: this.options.timeoutMs, logger, tracked }, async () => {
      const params = request.params ?? {};
      const name = params.name;
      if (typeof name === 'string') tracked.target = name;
      tracked.args = params.arguments ?? {};
      if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string');
      compiled = this.options.prompts.get(name);
      // prompts.mdx "Error Handling": an invalid prompt name is -32602.
      if (!compiled) throw unknownPrompt(name);
      // One the caller may not know of is the same unknown prompt; one it may know of but lacks scopes for, 403.
      const { scopePolicy: policy } = this.options;
      authorizeEntry(policy, policy.promptRequirement(compiled.scope), exchange.auth, () => unknownPrompt(name));
      const given = params.arguments ?? {};
      if (!isPlainObject(given) || !allStrings(given)) {
        throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object of strings');
      }
      await takeRequestPoint(this.options.rateLimiter, Method.promptsGet, callerKeyOf(exchange));
      const checked = await compiled.args.check(given);
      if (!checked.ok) throw new RpcError(ErrorCode.InvalidParams, `Invalid params for prompt ${name}: ${checked.problems.join('; ')}`);
      const { prompt } = compiled;
      return {
        binding: { tool: `prompt ${name}`, args: given, principal: callerKeyOf(exchange) },
        timeoutMs: prompt.timeoutMs,
        handler: (ctx) => prompt.get(checked.value, ctx),
      };
    });
    if (outcome === undefined) return undefined;
    if (!('value' in outcome)) return outcome as unknown as MethodResult;
    const normalized = normalizePrompt(outcome.value, compiled!.prompt.description);
    if (!normalized.ok) {
      tracked.status = 'internal_error';
      logger.error({ prompt: compiled!.name, problem: normalized.problem }, 'a prompt returned an invalid result');
      throw new RpcError(ErrorCode.InternalError, `Internal error: prompt ${compiled!.name} produced an invalid result`);
    }
    return normalized.result as unknown as MethodResult;
  }
}

/** Whether every value is a string; a loop, not Object.values, which takes ~0.4 s to copy 300,000 arguments (issue 21 #8). */
function allStrings(values: Record<string, unknown>): boolean {
  for (const key in values) if (Object.hasOwn(values, key) && typeof values[key] !== 'string') return false;
  return true;
}

/** The error for a prompt that does not exist, or that the caller may not know of. */
export function unknownPrompt(name: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name.length > 128 ? `${name.slice(0, 128)}…` : name}`);
}

export { PromptRegistry } from './registry.js';
export { definePrompt, type Prompt, type PromptArgument, type PromptMessage, type PromptReturn, type PromptContext } from './prompt.js';
export { PromptDefinitionError } from './compile.js';
