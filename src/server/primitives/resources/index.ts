import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import { Method } from '../../../protocol/methods.js';
import type { ResultEncoder } from '../../../protocol/result.js';
import type { Era } from '../../../protocol/versions.js';
import type { Exchange, Reply } from '../../peer.js';
import type { ResultStore } from '../../result-store.js';
import { ok, type MethodTable, type Primitive } from '../method-table.js';

export interface ResourcesPrimitiveOptions {
  resultStore: ResultStore;
  results: ResultEncoder;
}

/**
 * The Resources primitive. Results too large to send inline are read by the
 * uri of their resource_link, by the caller who made them, until they
 * expire. They are per-caller, so they are not listed.
 */
export class ResourcesPrimitive implements Primitive {
  constructor(private readonly options: ResourcesPrimitiveOptions) {}

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.resources = {};
  }

  register(methods: MethodTable): void {
    methods.both(Method.resourcesList, (era) => (request) => ok(request, this.options.results.encode(era, { resources: [], ...privateHints(era) })));
    methods.both(Method.resourceTemplatesList, (era) => (request) => ok(request, this.options.results.encode(era, { resourceTemplates: [], ...privateHints(era) })));
    methods.both(Method.resourcesRead, (era) => (request, exchange) => this.read(request, exchange, era));
  }

  private read(request: JsonRpcRequest, exchange: Exchange, era: Era): Reply {
    const uri = request.params?.uri;
    if (typeof uri !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string');
    const stored = this.options.resultStore.get(uri, exchange.principal);
    // resources.mdx "Error Handling": unknown resources are -32602 with the uri in data.
    if (!stored) throw new RpcError(ErrorCode.InvalidParams, 'Resource not found (it may have expired)', { uri });
    const contents = [{ uri, mimeType: stored.mimeType, ...(stored.text !== undefined ? { text: stored.text } : { blob: stored.blob }) }];
    const ttlMs = Math.max(0, stored.expiresAt - Date.now());
    return ok(request, this.options.results.encode(era, { contents, ...(era === 'modern' ? { ttlMs, cacheScope: 'private' } : {}) }));
  }
}

function privateHints(era: Era): Record<string, unknown> {
  return era === 'modern' ? { ttlMs: 0, cacheScope: 'private' } : {};
}
