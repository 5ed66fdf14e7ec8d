import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isPlainObject } from '../../../protocol/content.js';
import { Method } from '../../../protocol/methods.js';
import { callerOf } from '../../exchange.js';
import type { AuthInfo } from '../../../policy/auth/principal.js';
import { authorizeEntry, mayKnow } from '../../pipeline/authorize.js';
import type { ArgsSchema } from '../args-schema.js';
import type { MaybeResult, MethodPhases, MethodResult, MethodTable, Primitive } from '../method-table.js';
import type { PromptRegistry } from '../prompts/registry.js';
import type { Operation } from '../../pipeline/operation.js';
import type { TrackedRequest } from '../tracked.js';
import { runRequest } from '../../pipeline/run.js';
import type { RequestServices } from '../services.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Completer } from '../resources/resource.js';

/** completion.mdx "Completion Results": at most 100 values per response. */
const MAX_VALUES = 100;
const MAX_VALUE_CHARS = 4096;

/** Completing a prompt's argument or a template's variable needs the scopes getting or reading it needs. */
export interface CompletionPrimitiveOptions extends RequestServices {
  prompts: PromptRegistry;
  resources: ResourceRegistry;
}

/**
 * `completion/complete` (completion.mdx) for prompt arguments (`ref/prompt`)
 * and resource template variables (`ref/resource`, the template as listed).
 * Values come from the prompt's or template's `complete` function for that
 * argument, or else from the `enum` its schema gives it (those starting with
 * what was typed); an argument with neither gets no suggestions. Completion
 * answers immediately: it never asks the client for input.
 */
export class CompletionPrimitive implements Primitive {
  constructor(private readonly options: CompletionPrimitiveOptions) {}

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.completions = {};
  }

  register(methods: MethodTable): void {
    const complete = this.phases();
    // The reference completed, and what was typed (named again once checked).
    methods.declare(Method.complete, ['modern', 'legacy'], complete, { tracked: true, names: named });
  }

  /**
   * completion/complete by its phases: the params checked and the prompt or
   * template found and authorized, the caller rate-limited, then the user
   * middleware (it sees the params), then the completer. A middleware that
   * replaced the reference, argument or context has them checked again.
   */
  private phases(): MethodPhases<Asked> {
    return {
      services: this.options,
      target: (op, params) => ({ ...this.checked(params, callerOf(op.exchange), op), ref: params.ref, argument: params.argument, context: params.context }),
      rateKey: Method.complete,
      retarget: (asked, after) => after.ref !== asked.ref || after.argument !== asked.argument || after.context !== asked.context,
      run: (op, { target, value, chosen }) => {
        op.upstream = target.upstream; // a gateway's completion names its upstream in the audit record
        return target.completer ? this.run(target.completer, value, chosen, target.label, op) : completionOf(fromEnum(target.schema, target.argument, value));
      },
    };
  }

  /** What a completion request asks for: its argument's value, the arguments already chosen, and its target (-32602 for anything else). */
  private checked(
    params: Record<string, unknown>,
    auth: AuthInfo | undefined,
    op: Operation,
  ): { target: Target; value: string; chosen: Record<string, string> } {
    const { ref, argument, context } = params;
    named(op, params);
    if (!isPlainObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "argument" must be { name: string, value: string }');
    }
    if (argument.value.length > MAX_VALUE_CHARS)
      throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "argument.value" is longer than ${MAX_VALUE_CHARS} characters`);
    const chosen = isPlainObject(context) && context.arguments !== undefined ? context.arguments : {};
    if (!isPlainObject(chosen) || !Object.values(chosen).every((v) => typeof v === 'string')) {
      throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "context.arguments" must be an object of strings');
    }
    return { target: this.target(ref, argument.name, auth), value: argument.value, chosen: chosen as Record<string, string> };
  }

  /** The completer (or schema) for `argument` of the referenced prompt or template; -32602 for an unknown one. */
  private target(ref: unknown, argument: string, auth: AuthInfo | undefined): Target {
    if (!isPlainObject(ref)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "ref" must be a ref/prompt or ref/resource reference');
    const policy = this.options.scopePolicy;
    if (ref.type === 'ref/prompt') {
      const prompt = typeof ref.name === 'string' ? this.options.prompts.get(ref.name) : undefined;
      const unknown = () => new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${String(ref.name).slice(0, 128)}`);
      if (!prompt) throw unknown();
      // Before anything about its arguments is said: a prompt the caller may not know of is unknown.
      authorizeEntry(policy, policy.promptRequirement(prompt.scope), auth, unknown);
      if (!prompt.arguments.some((a) => a.name === argument))
        throw new RpcError(ErrorCode.InvalidParams, `Prompt ${prompt.name} has no argument ${JSON.stringify(argument.slice(0, 128))}`);
      return { completer: prompt.prompt.complete?.[argument], schema: prompt.args, label: `prompt ${prompt.name}`, argument, upstream: prompt.prompt.upstream };
    }
    if (ref.type === 'ref/resource') {
      const template = typeof ref.uri === 'string' ? this.options.resources.getTemplate(ref.uri) : undefined;
      const unknown = () => new RpcError(ErrorCode.InvalidParams, `Unknown resource template: ${String(ref.uri).slice(0, 256)}`);
      if (!template) {
        // A fixed resource has no variables to complete (one the caller may not know of is unknown).
        const fixed = typeof ref.uri === 'string' ? this.options.resources.get(ref.uri) : undefined;
        if (fixed && mayKnow(policy, policy.resourceRequirement(fixed.scope), auth)) return { label: fixed.uri, argument };
        throw unknown();
      }
      authorizeEntry(policy, policy.resourceRequirement(template.scope), auth, unknown);
      if (!template.uriTemplate.variables.includes(argument)) {
        throw new RpcError(ErrorCode.InvalidParams, `Template ${template.uriTemplate.template} has no variable ${JSON.stringify(argument.slice(0, 128))}`);
      }
      return {
        completer: template.template.complete?.[argument],
        schema: template.variables,
        label: template.uriTemplate.template,
        argument,
        upstream: template.template.upstream,
      };
    }
    throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource"');
  }

  /**
   * Runs an author's completer through the one runner (the request timeout, a
   * shutdown's stop, a failure behind a correlation id, a cancellation
   * unanswered); what it returns is kept to strings.
   */
  private run(completer: Completer, value: string, chosen: Record<string, string>, label: string, op: Operation): MaybeResult {
    op.binding = { tool: `completion for ${label}`, args: {}, principal: '' };
    op.handler = () => completer(value, { arguments: { ...chosen } });
    op.finish = (values) => {
      if (!Array.isArray(values)) throw new Error('a completer must return a list of strings');
      return completionOf(values.filter((v): v is string => typeof v === 'string'));
    };
    return runRequest(op, this.options);
  }
}

/** The result: at most MAX_VALUES values, with how many there were. */
function completionOf(values: string[]): MethodResult {
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
}

/** What a completion request names: the prompt or template referenced, and the argument with its context. */
function named(op: TrackedRequest, params: Record<string, unknown>): void {
  const { ref } = params;
  if (isPlainObject(ref)) op.target = ref.type === 'ref/prompt' ? `prompt ${String(ref.name)}` : `resource ${String(ref.uri)}`;
  op.args = { argument: params.argument, context: params.context };
}

/** What a completion request asks: its target, what was typed, the arguments chosen, and the params they were read from. */
interface Asked {
  target: Target;
  value: string;
  chosen: Record<string, string>;
  ref: unknown;
  argument: unknown;
  context: unknown;
}

/** What a completion completes: the argument of a prompt or template, with its completer or schema. */
interface Target {
  completer?: Completer;
  schema?: ArgsSchema;
  label: string;
  argument: string;
  upstream?: string;
}

/** The schema's `enum` for the argument, those that start with what was typed (case-insensitive). */
function fromEnum(schema: ArgsSchema | undefined, argument: string, typed: string): string[] {
  const properties = schema?.json.properties;
  const property = isPlainObject(properties) ? properties[argument] : undefined;
  const values = isPlainObject(property) && Array.isArray(property.enum) ? property.enum : [];
  const prefix = typed.toLowerCase();
  return values.filter((v): v is string => typeof v === 'string' && v.toLowerCase().startsWith(prefix));
}
