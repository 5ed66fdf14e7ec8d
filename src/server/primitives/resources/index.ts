import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { Method } from '../../../protocol/methods.js';
import type { Era } from '../../../protocol/versions.js';
import type { AuthInfo } from '../../../policy/auth/principal.js';
import { authorizeEntry, mayKnow, mayUse } from '../../pipeline/authorize.js';
import { ScopedListing } from '../../scoped-listing.js';
import { callerKeyOf, callerOf, type Exchange } from '../../exchange.js';
import type { ResultStore } from '../../../state/result-store.js';
import { MAX_WATCHED_URI_CHARS } from '../../subscriptions.js';
import { Answered, type MethodPhases, type MethodResult, type MethodTable, type Primitive } from '../method-table.js';
import type { RequestContext } from '../request-context.js';
import { runRequest } from '../../pipeline/run.js';
import type { Operation } from '../../pipeline/operation.js';
import type { ListingServices } from '../services.js';
import { RESULT_URI_PREFIX } from './compile.js';
import { normalizeContents } from './contents.js';
import type { CompiledResource, CompiledTemplate } from './compile.js';
import type { ResourceRegistry } from './registry.js';
import { StateUnavailableError } from '../../../state/redis/connection.js';
import type { ReadReturn } from './resource.js';
import type { TemplateVariables } from './uri-template.js';
import type { ArgsChecked } from '../args-schema.js';
import { recordedText } from '../../../jsonrpc/recorded.js';

/** Longest URI a read may name; longer ones are -32602 before any matching. */
const MAX_READ_URI_CHARS = 8192;
/** Largest read result, in bytes of text or base64; a read past it is -32603 (the log says which). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

export interface ResourcesPrimitiveOptions extends ListingServices {
  resources: ResourceRegistry;
  resultStore: ResultStore;
}

/**
 * The Resources primitive (resources.mdx): fixed resources and URI
 * templates registered on `server.resources`, listed in cached pages and
 * read through their `read`; beside them the large tool results the server
 * stored, read by the uri of their resource_link, by the caller who made
 * them, until they expire (per caller, so never listed). Subscriptions:
 * modern clients name URIs in `subscriptions/listen`, legacy sessions call
 * `resources/subscribe`; either hears `notifications/resources/updated`
 * when the server calls `server.resources.updated(uri)`.
 */
export class ResourcesPrimitive implements Primitive {
  private readonly listing: ScopedListing<CompiledResource>;
  private readonly templateListing: ScopedListing<CompiledTemplate>;

  constructor(private readonly options: ResourcesPrimitiveOptions) {
    const { resources, subscriptions, pageSize, cacheHints, results, scopePolicy: policy } = options;
    const requirement = (entry: CompiledResource | CompiledTemplate) => policy.resourceRequirement(entry.scope);
    this.listing = new ScopedListing(resources, 'resources', pageSize, cacheHints, results, policy, requirement);
    const templates = {
      get version() {
        return resources.version;
      },
      list: () => resources.templates(),
    };
    this.templateListing = new ScopedListing(templates, 'resourceTemplates', pageSize, cacheHints, results, policy, requirement);
    subscriptions.offer('resources');
    subscriptions.offer('resourceUpdates');
    resources.onChange(() => subscriptions.listChanged('resources'));
    resources.onUpdate((uri) => subscriptions.resourceUpdated(uri));
    subscriptions.watchResources((uri, auth) => this.mayRead(uri, auth));
  }

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.resources = { subscribe: true, listChanged: true };
  }

  register(methods: MethodTable): void {
    methods.runs(Method.resourcesList, ['modern', 'legacy'], this.listing.run);
    methods.runs(Method.resourceTemplatesList, ['modern', 'legacy'], this.templateListing.run);
    const read = this.readPhases();
    methods.declare(Method.resourcesRead, ['modern', 'legacy'], read, { tracked: true });
    // 2026-07-28 replaced these with subscriptions/listen's resourceSubscriptions. Subscribe: a resource the caller may
    // not read is acknowledged as any unknown URI is (before any middleware runs), and never reported to it.
    const subscribe = this.watchPhases((uri, exchange) => {
      if (!this.options.subscriptions.subscribeLegacy(exchange.peer, uri)) {
        throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: this session watches as many resources as it may; unsubscribe from one first');
      }
    }, true);
    methods.declare(Method.resourcesSubscribe, ['legacy'], subscribe, { tracked: true });
    const unsubscribe = this.watchPhases((uri, exchange) => this.options.subscriptions.unsubscribeLegacy(exchange.peer, uri), false);
    methods.declare(Method.resourcesUnsubscribe, ['legacy'], unsubscribe, { tracked: true });
  }

  /** resources/(un)subscribe by their phases: the uri checked (and, `readable`, the caller allowed to read it), the user middleware (it sees `{ uri }`), then `apply`. */
  private watchPhases(apply: (uri: string, exchange: Exchange) => void, readable: boolean): MethodPhases<string> {
    return {
      services: this.options,
      target: (op, params) => {
        const uri = watchedUri(params.uri);
        return readable && !this.mayRead(uri, callerOf(op.exchange)) ? new Answered({}) : uri;
      },
      params: (_op, uri) => ({ uri }),
      retarget: (uri, params) => params.uri !== uri,
      run: (op, uri) => {
        apply(uri, op.exchange);
        return {};
      },
    };
  }

  /**
   * resources/read by its phases: the uri checked, the caller rate-limited
   * (before any matching: templates cost), the resource found and authorized,
   * a template's variables checked, then the user middleware (it sees
   * `{ uri }` and `ctx.resource`), then the read. A stored result (its uri
   * from a resource_link) is the caller's own: not rate-limited, read from
   * the store. A middleware may name another uri: found, authorized and
   * checked again.
   */
  private readPhases(): MethodPhases<Resolved> {
    return {
      services: this.options,
      target: (op, params) => {
        const uri = checkedUri(params.uri, op);
        return uri.startsWith(RESULT_URI_PREFIX) ? { uri, stored: uri } : { uri };
      },
      rateKey: (target) => (target.stored === undefined ? Method.resourcesRead : undefined),
      params: (op, target) => {
        const params = { uri: target.uri };
        // Resolved at once unless a template's Standard Schema parses its variables asynchronously.
        const resolved = target.stored === undefined ? this.resolve(target, op) : undefined;
        return resolved instanceof Promise ? resolved.then(() => params) : params;
      },
      shown: (target) => (target.stored === undefined ? { resource: target.meta } : undefined),
      retarget: (target, params) => params.uri !== target.uri,
      run: (op, target) => {
        const era = op.info.era;
        if (target.stored !== undefined) return this.readStored(op.exchange, target.stored, era);
        const { meta, read } = target;
        op.binding = { tool: `resource ${target.uri}`, args: target.variables ?? {}, principal: callerKeyOf(op.exchange) };
        op.openInputs(this.options.requestState);
        op.timeoutMs = meta!.timeoutMs;
        op.upstream = meta!.upstream;
        op.handler = read;
        op.finish = (value) => this.contents(value as ReadReturn, target.uri, meta!, op);
        return runRequest(op, this.options);
      },
    };
  }

  /** What `target.uri` names, if the caller may read it: its read, its metadata and a template's checked variables (filled in). */
  private resolve(target: Resolved, op: Operation): void | Promise<void> {
    const { uri } = target;
    const { resources, scopePolicy: policy } = this.options;
    const auth = callerOf(op.exchange);
    // A resource the caller may not know of is "not found", exactly as a URI nothing serves.
    const fixed = resources.get(uri);
    if (fixed && mayKnow(policy, policy.resourceRequirement(fixed.scope), auth)) {
      authorizeEntry(policy, policy.resourceRequirement(fixed.scope), auth, () => notFound(uri));
      target.meta = fixed.resource;
      target.read = (ctx) => fixed.resource.read(ctx);
      return;
    }
    // Templates the caller may not know of are skipped: the next one that matches answers, as if they were not there.
    const matched = resources.matchTemplate(uri, (t) => mayKnow(policy, policy.resourceRequirement(t.scope), auth));
    // resources.mdx "Error Handling": unknown resources are -32602 with the uri in data.
    if (!matched) throw notFound(uri);
    const { template } = matched;
    authorizeEntry(policy, policy.resourceRequirement(template.scope), auth, () => notFound(uri));
    op.args = matched.variables;
    const checked = template.variables?.check(matched.variables);
    if (checked instanceof Promise) return checked.then((c) => readTemplate(target, template, matched.variables, c));
    readTemplate(target, template, matched.variables, checked);
  }

  /** A read's result: its contents, checked and bounded, with the era's cache hints. */
  private contents(value: ReadReturn, uri: string, meta: ResourceMeta, op: Operation): MethodResult {
    const normalized = normalizeContents(value, uri, meta.mimeType);
    if (normalized === undefined) throw notFound(uri);
    if (!normalized.ok || normalized.bytes > MAX_READ_BYTES) {
      const problem = normalized.ok ? `the contents are ${normalized.bytes} bytes, over the ${MAX_READ_BYTES}-byte limit` : normalized.problem;
      op.status = 'internal_error';
      this.options.logger.error({ uri: recordedText(uri), problem }, 'a resource read returned invalid contents');
      throw new RpcError(ErrorCode.InternalError, `Internal error: the server could not read ${uri}`);
    }
    // Literals, not a spread of the hints: V8 gives a spread-built object a map its JSON.stringify
    // fast path and inline caches do not take (the prompts/get result measured 3.4 µs to encode, not 1.2).
    const { contents } = normalized;
    if (op.info.era !== 'modern') return { contents };
    // Retried with answers (mrtr.mdx): the result depends on them, so it is not for any cache (caching.mdx "Cache Key").
    const retried = op.params.inputResponses !== undefined || op.params.requestState !== undefined;
    if (retried) return { contents, ttlMs: 0, cacheScope: 'private' };
    return { contents, ttlMs: meta.ttlMs ?? this.options.cacheHints.ttlMs, cacheScope: meta.cacheScope ?? 'public' };
  }

  /** Whether `auth` may read `uri` (a subscription to one it may not is never reported to it). */
  private mayRead(uri: string, auth: AuthInfo | undefined): boolean {
    if (auth?.scopes === undefined || uri.startsWith(RESULT_URI_PREFIX)) return true;
    const { resources, scopePolicy: policy } = this.options;
    const fixed = resources.get(uri);
    if (fixed && mayKnow(policy, policy.resourceRequirement(fixed.scope), auth)) return mayUse(policy, policy.resourceRequirement(fixed.scope), auth);
    const matched = resources.matchTemplate(uri, (t) => mayKnow(policy, policy.resourceRequirement(t.scope), auth));
    if (matched) return mayUse(policy, policy.resourceRequirement(matched.template.scope), auth);
    // Served only by what the caller may not know of: never reported. A URI nothing serves may be served later.
    return !fixed && !resources.matchTemplate(uri);
  }

  private async readStored(exchange: Exchange, uri: string, era: Era): Promise<MethodResult> {
    const stored = await this.options.resultStore.get(uri, callerKeyOf(exchange)).catch(storeUnavailable);
    if (!stored) throw new RpcError(ErrorCode.InvalidParams, 'Resource not found (it may have expired)', { uri });
    const contents = [
      stored.text !== undefined ? { uri, mimeType: stored.mimeType, text: stored.text } : { uri, mimeType: stored.mimeType, blob: stored.blob },
    ];
    if (era !== 'modern') return { contents };
    return { contents, ttlMs: Math.max(0, stored.expiresAt - Date.now()), cacheScope: 'private' };
  }
}

type ResourceMeta = { mimeType?: string; ttlMs?: number; cacheScope?: 'public' | 'private'; timeoutMs?: number; upstream?: string };

/** What a uri names for its caller: a stored result's uri, or (once resolved) a resource's read and what its definition says. */
interface Resolved {
  uri: string;
  stored?: string;
  meta?: ResourceMeta;
  variables?: Record<string, unknown>;
  read?: (ctx: RequestContext) => ReadReturn | Promise<ReadReturn>;
}

/** Fills in a template's read of `target.uri` once its variables passed the template's check (`checked`; none: it has no schema); -32602 when they did not. */
function readTemplate(target: Resolved, template: CompiledTemplate, variables: TemplateVariables, checked: ArgsChecked | undefined): void {
  const { uri } = target;
  if (checked && !checked.ok)
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: ${uri} does not name a resource of ${template.uriTemplate.template}: ${checked.problems.join('; ')}`,
      { uri },
    );
  const value = checked ? checked.value : variables;
  target.meta = template.template;
  target.variables = variables;
  target.read = (ctx) => template.template.read(uri, value, ctx);
}

/** The uri a read names, recorded as its target: -32602 before any matching when it is not a string of 1 to MAX_READ_URI_CHARS characters. */
function checkedUri(uri: unknown, op: Operation): string {
  if (typeof uri === 'string') op.target = uri;
  if (typeof uri !== 'string' || uri === '') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a non-empty string');
  if (uri.length > MAX_READ_URI_CHARS) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "uri" is longer than ${MAX_READ_URI_CHARS} characters`);
  return uri;
}

/** The store cannot be reached (shared state down): -32603, as a refusal for an unwritable audit trail is; the store's message names no address. */
function storeUnavailable(err: unknown): never {
  throw new RpcError(
    ErrorCode.InternalError,
    `Stored results cannot be read: ${err instanceof StateUnavailableError ? err.message : 'the result store failed'}`,
  );
}

function notFound(uri: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, 'Resource not found', { uri });
}

function watchedUri(uri: unknown): string {
  if (typeof uri !== 'string' || uri === '' || uri.length > MAX_WATCHED_URI_CHARS) {
    throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "uri" must be a string of 1 to ${MAX_WATCHED_URI_CHARS} characters`);
  }
  return uri;
}

export { ResourceRegistry } from './registry.js';
export {
  defineResource,
  defineResourceTemplate,
  type Resource,
  type ResourceTemplate,
  type ResourceContext,
  type ResourceContent,
  type ReadReturn,
  type Completer,
} from './resource.js';
export { ResourceDefinitionError } from './compile.js';
export { UriTemplate, type TemplateVariables } from './uri-template.js';
