import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isLogLevel, LOG_LEVELS, type Implementation } from '../../../protocol/meta.js';
import { Method } from '../../../protocol/methods.js';
import { shapeResult, type CacheHints } from '../../../protocol/result.js';
import { isPlainObject } from '../../../protocol/content.js';
import { MODERN_VERSIONS, negotiateLegacyVersion, type Era } from '../../../protocol/versions.js';
import { callerOf, type Exchange, type LegacySession } from '../../exchange.js';
import type { SubscriptionHub } from '../../subscriptions.js';
import { withJson } from '../../serialized.js';
import type { MethodResult, MethodTable, Primitive } from '../method-table.js';

export interface LifecycleOptions {
  serverInfo: Implementation;
  instructions?: string;
  cacheHints: CacheHints;
  /** What the server's primitives advertise to `era`'s clients (read on the first discover, or initialize). */
  capabilities(era: Era): Record<string, unknown>;
  /** Where a legacy session joins the sessions told of changes. */
  subscriptions: SubscriptionHub;
}

/**
 * The base protocol around the primitives: `server/discover` (modern),
 * `initialize`, `ping` and `logging/setLevel` (legacy; 2026-07-28 removed
 * them, so modern requests for them are -32601). `initialize` comes before
 * there is a session: the dispatcher routes it by its name.
 */
export class LifecyclePrimitive implements Primitive {
  private discovered?: MethodResult;

  constructor(private readonly options: LifecycleOptions) {}

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.logging = {};
  }

  register(methods: MethodTable): void {
    methods.runs(Method.discover, ['modern'], () => (this.discovered ??= this.discover()));
    methods.runs(Method.initialize, ['legacy'], (op, params) => this.initialize(params, op.exchange));
    methods.runs(Method.ping, ['legacy'], () => ({}));
    methods.runs(Method.setLogLevel, ['legacy'], (op, params) => setLogLevel(params, op.exchange.peer.legacy!), { tracked: true });
  }

  /** Built on the first discover (the capabilities are complete by then), serialized once. */
  private discover(): MethodResult {
    const { instructions, cacheHints, serverInfo } = this.options;
    const json = JSON.stringify(
      shapeResult(
        'modern',
        {
          supportedVersions: [...MODERN_VERSIONS],
          capabilities: this.options.capabilities('modern'),
          ...(instructions ? { instructions } : {}),
          ...cacheHints,
        },
        serverInfo,
      ),
    );
    // A copy of its own to freeze: the capabilities and server identity stay the server's.
    return withJson(JSON.parse(json) as MethodResult, json);
  }

  /** Opens the legacy session on the peer (lifecycle.mdx "Initialization"): the version negotiated, the client's capabilities kept. */
  private initialize(params: Record<string, unknown>, exchange: Exchange): MethodResult {
    const { peer } = exchange;
    if (peer.legacy) throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: this connection is already initialized');
    const caps = params.capabilities;
    if (typeof params.protocolVersion !== 'string' || !isPlainObject(caps)) {
      throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: initialize needs "protocolVersion" (string) and "capabilities" (object)');
    }
    const version = negotiateLegacyVersion(params.protocolVersion);
    const info = params.clientInfo;
    peer.legacy = { protocolVersion: version, clientCapabilities: caps, clientInfo: isPlainObject(info) ? (info as Implementation) : undefined };
    this.options.subscriptions.addLegacyPeer(peer, callerOf(exchange));
    const { serverInfo, instructions } = this.options;
    return { protocolVersion: version, capabilities: this.options.capabilities('legacy'), serverInfo, ...(instructions ? { instructions } : {}) };
  }
}

/** logging/setLevel (legacy): the session's level, for the logs it is sent from now on. */
function setLogLevel(params: Record<string, unknown>, session: LegacySession): MethodResult {
  const { level } = params;
  if (!isLogLevel(level)) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}`);
  session.logLevel = level;
  return {};
}
