/** The gateway: upstream MCP servers (stdio, HTTP, in process) and HTTP APIs mounted as a ToolServer's own entries. */
export { mount, GatewayCollisionError, type MountHandle, type MountContext } from './mount.js';
export type { Clash, EntryKind } from './entry-sync.js';
export { UPSTREAM_LOADERS, upstreamKind, type LoaderContext, type OpenedTransport, type UpstreamKind, type UpstreamLoader } from './loaders.js';
export type {
  Upstream,
  StdioUpstream,
  HttpUpstream,
  OpenApiUpstream,
  InProcessUpstream,
  MountOptions,
  ToolTransform,
  UpstreamEvent,
  UpstreamHealth,
  UpstreamState,
} from './types.js';
export { Gateway, splitEntry, type UpstreamEntry } from './gateway.js';
export { GATEWAY_HEALTH_URI, serveUpstreamHealth, type HealthResourceOptions } from './health.js';
export { useSearchCatalog, type SearchCatalogOptions } from './search-catalog.js';
export { openApiTools, OpenApiError } from './openapi/index.js';
export type { BasicCredentials, ClientCredentials, OpenApiFilter, OpenApiToolsOptions, SchemeCredentials } from './openapi/types.js';
