import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isLogLevel, LOG_LEVELS, type Implementation } from '../../../protocol/meta.js';
import { Method } from '../../../protocol/methods.js';
import { shapeResult, type CacheHints } from '../../../protocol/result.js';
import { MODERN_VERSIONS } from '../../../protocol/versions.js';
import type { LegacySession } from '../../exchange.js';
import { withJson } from '../../serialized.js';
import type { MethodResult, MethodTable, Primitive } from '../method-table.js';

export interface LifecycleOptions {
  serverInfo: Implementation;
  instructions?: string;
  cacheHints: CacheHints;
  /** What the server's primitives advertise to modern clients (read once, on the first discover). */
  capabilities(): Record<string, unknown>;
}

/**
 * The base protocol around the primitives: `server/discover` (modern), `ping`
 * and `logging/setLevel` (legacy; 2026-07-28 removed both, so modern
 * requests for them are -32601). `initialize` opens the legacy session in the
 * dispatcher, since it comes before there is one.
 */
export class LifecyclePrimitive implements Primitive {
  private discovered?: MethodResult;

  constructor(private readonly options: LifecycleOptions) {}

  advertise(capabilities: Record<string, unknown>): void {
    capabilities.logging = {};
  }

  register(methods: MethodTable): void {
    methods.add(Method.discover, { modern: () => (this.discovered ??= this.discover()) });
    methods.add(Method.ping, { legacy: () => ({}) });
    methods.add(Method.setLogLevel, {
      tracked: true,
      legacy: (request, _exchange, facts) => {
        const level = request.params?.level;
        if (!isLogLevel(level)) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}`);
        (facts as LegacySession).logLevel = level;
        return {};
      },
    });
  }

  /** Built on the first discover (the capabilities are complete by then), serialized once. */
  private discover(): MethodResult {
    const { instructions, cacheHints, serverInfo } = this.options;
    const json = JSON.stringify(
      shapeResult(
        'modern',
        {
          supportedVersions: [...MODERN_VERSIONS],
          capabilities: this.options.capabilities(),
          ...(instructions ? { instructions } : {}),
          ...cacheHints,
        },
        serverInfo,
      ),
    );
    // A copy of its own to freeze: the capabilities and server identity stay the server's.
    return withJson(JSON.parse(json) as MethodResult, json);
  }
}
