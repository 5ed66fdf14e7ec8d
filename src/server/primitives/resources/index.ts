import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import { Method } from '../../../protocol/methods.js';
import type { Era } from '../../../protocol/versions.js';
import type { AuthInfo } from '../../../policy/auth/principal.js';
import { authorizeEntry, mayKnow, mayUse } from '../../pipeline/authorize.js';
import { ScopedListing } from '../../scoped-listing.js';
import { callerKeyOf, type Exchange } from '../../exchange.js';
import type { ResultStore } from '../../result-store.js';
import { MAX_WATCHED_URI_CHARS } from '../../subscriptions.js';
import type { MethodResult, MethodTable, Primitive, RequestFacts } from '../method-table.js';
import { takeRequestPoint } from '../rate-limit.js';
import { runWithInputs, type RequestContext } from '../request-context.js';
import type { TrackedRequest } from '../tracked-request.js';
import type { ListingServices } from '../services.js';
import { RESULT_URI_PREFIX } from './compile.js';
import { normalizeContents } from './contents.js';
import type { CompiledResource, CompiledTemplate } from './compile.js';
import type { ResourceRegistry } from './registry.js';
import { StateUnavailableError } from '../../../state/redis/connection.js';
import type { ReadReturn } from './resource.js';

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
    const templates = { get version() { return resources.version; }, list: () => resources.templates() };
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
    methods.both(Method.resourcesList, (era) => (request, exchange) => this.listing.page(era, request.params?.cursor, exchange.auth));
    methods.both(Method.resourceTemplatesList, (era) => (request, exchange) => this.templateListing.page(era, request.params?.cursor, exchange.auth));
    methods.both(Method.resourcesRead, (era) => (request, exchange, facts, tracked) => this.read(request, exchange, facts, era, tracked!), { tracked: true });
    // 2026-07-28 replaced these with subscriptions/listen's resourceSubscriptions.
    methods.add(Method.resourcesSubscribe, {
      tracked: true,
      legacy: (request, exchange, _facts, tracked) => {
        if (typeof request.params?.uri === 'string') tracked!.target = request.params.uri;
        const uri = watchedUri(request);
        // A resource the caller may not read is acknowledged as any unknown URI is, and never reported to it.
        if (!this.mayRead(uri, exchange.auth)) return {};
        if (!this.options.subscriptions.subscribeLegacy(exchange.peer, uri)) {
          throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: this session watches as many resources as it may; unsubscribe from one first');
        }
        return {};
      },
    });
    methods.add(Method.resourcesUnsubscribe, {
      legacy: (request, exchange) => {
        this.options.subscriptions.unsubscribeLegacy(exchange.peer, watchedUri(request));
        return {};
      },
    });
  }

  private async read(request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts, era: Era, tracked: TrackedRequest): Promise<MethodResult | undefined> {
    const uri = request.params?.uri;
    if (typeof uri === 'string') tracked.target = uri;
    if (typeof uri !== 'string' || uri === '') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a non-empty string');
    if (uri.length > MAX_READ_URI_CHARS) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "uri" is longer than ${MAX_READ_URI_CHARS} characters`);
    if (uri.startsWith(RESULT_URI_PREFIX)) return this.readStored(exchange, uri, era);
    const { logger, resources } = this.options;
    let meta: ResourceMeta = {};
    const outcome = await runWithInputs(request, exchange, era, facts, { codec: this.options.requestState, timeoutMs: this.options.timeoutMs, logger, tracked }, async () => {
      await takeRequestPoint(this.options.rateLimiter, Method.resourcesRead, callerKeyOf(exchange));
      const binding = { tool: `resource ${uri}`, args: {} as unknown, principal: callerKeyOf(exchange) };
      const { scopePolicy: policy } = this.options;
      const auth = exchange.auth;
      // A resource the caller may not know of is "not found", exactly as a URI nothing serves.
      const fixed = resources.get(uri);
      if (fixed && mayKnow(policy, policy.resourceRequirement(fixed.scope), auth)) {
        authorizeEntry(policy, policy.resourceRequirement(fixed.scope), auth, () => notFound(uri));
        meta = fixed.resource;
        return { binding, timeoutMs: meta.timeoutMs, handler: (ctx: RequestContext): ReadReturn | Promise<ReadReturn> => fixed.resource.read(ctx) };
      }
      // Templates the caller may not know of are skipped: the next one that matches answers, as if they were not there.
      const matched = resources.matchTemplate(uri, (t) => mayKnow(policy, policy.resourceRequirement(t.scope), auth));
      // resources.mdx "Error Handling": unknown resources are -32602 with the uri in data.
      if (!matched) throw notFound(uri);
      const { template } = matched;
      authorizeEntry(policy, policy.resourceRequirement(template.scope), auth, () => notFound(uri));
      meta = template.template;
      binding.args = matched.variables;
      tracked.args = matched.variables;
      let variables: unknown = matched.variables;
      if (template.variables) {
        const checked = await template.variables.check(matched.variables);
        if (!checked.ok) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: ${uri} does not name a resource of ${template.uriTemplate.template}: ${checked.problems.join('; ')}`, { uri });
        variables = checked.value;
      }
      return { binding, timeoutMs: meta.timeoutMs, handler: (ctx: RequestContext): ReadReturn | Promise<ReadReturn> => template.template.read(uri, variables, ctx) };
    });
    if (outcome === undefined) return undefined;
    if (!('value' in outcome)) return outcome as unknown as MethodResult;
    const normalized = normalizeContents(outcome.value, uri, meta.mimeType);
    if (normalized === undefined) throw notFound(uri);
    if (!normalized.ok || normalized.bytes > MAX_READ_BYTES) {
      const problem = normalized.ok ? `the contents are ${normalized.bytes} bytes, over the ${MAX_READ_BYTES}-byte limit` : normalized.problem;
      tracked.status = 'internal_error';
      logger.error({ uri, problem }, 'a resource read returned invalid contents');
      throw new RpcError(ErrorCode.InternalError, `Internal error: the server could not read ${uri}`);
    }
    // Retried with answers (mrtr.mdx): the result depends on them, so it is not for any cache (caching.mdx "Cache Key").
    const retried = request.params?.inputResponses !== undefined || request.params?.requestState !== undefined;
    const hints = era === 'modern'
      ? retried ? { ttlMs: 0, cacheScope: 'private' } : { ttlMs: meta.ttlMs ?? this.options.cacheHints.ttlMs, cacheScope: meta.cacheScope ?? 'public' }
      : {};
    return { contents: normalized.contents, ...hints };
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
    const contents = [{ uri, mimeType: stored.mimeType, ...(stored.text !== undefined ? { text: stored.text } : { blob: stored.blob }) }];
    const ttlMs = Math.max(0, stored.expiresAt - Date.now());
    return { contents, ...(era === 'modern' ? { ttlMs, cacheScope: 'private' } : {}) };
  }
}

type ResourceMeta = { mimeType?: string; ttlMs?: number; cacheScope?: 'public' | 'private'; timeoutMs?: number };

/** The store cannot be reached (shared state down): -32603, as a refusal for an unwritable audit trail is; the store's message names no address. */
function storeUnavailable(err: unknown): never {
  throw new RpcError(ErrorCode.InternalError, `Stored results cannot be read: ${err instanceof StateUnavailableError ? err.message : 'the result store failed'}`);
}

function notFound(uri: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, 'Resource not found', { uri });
}

function watchedUri(request: JsonRpcRequest): string {
  const uri = request.params?.uri;
  if (typeof uri !== 'string' || uri === '' || uri.length > MAX_WATCHED_URI_CHARS) {
    throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "uri" must be a string of 1 to ${MAX_WATCHED_URI_CHARS} characters`);
  }
  return uri;
}

export { ResourceRegistry } from './registry.js';
export { defineResource, defineResourceTemplate, type Resource, type ResourceTemplate, type ResourceContext, type ResourceContent, type ReadReturn, type Completer } from './resource.js';
export { ResourceDefinitionError } from './compile.js';
export { UriTemplate, type TemplateVariables } from './uri-template.js';
