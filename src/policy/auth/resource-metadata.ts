import type { ResourceServerOptions } from './options.js';

const PRM_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * Where the Protected Resource Metadata (RFC 9728) of `resource` is served:
 * the path-suffixed well-known URI (RFC 9728 §3.1) and the root one, both of
 * which clients try (authorization-server-discovery.mdx). The first is the
 * one challenges name.
 */
export function metadataPaths(resource: string, servedPath: string): string[] {
  const resourcePath = new URL(resource).pathname.replace(/\/+$/, '');
  const paths = [PRM_WELL_KNOWN + resourcePath, PRM_WELL_KNOWN + servedPath.replace(/\/+$/, ''), PRM_WELL_KNOWN];
  return [...new Set(paths)];
}

export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${PRM_WELL_KNOWN}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The metadata document: `resource`, `authorization_servers`,
 * `scopes_supported`, `bearer_methods_supported` (only the header: query
 * and form tokens are refused), and the operator's own members, which may
 * add to but never replace those.
 */
export function protectedResourceMetadata(options: ResourceServerOptions, resource: string): Record<string, unknown> {
  const servers = options.authorizationServers ?? (options.issuer ? [options.issuer] : []);
  return {
    ...options.resourceMetadata,
    resource,
    ...(servers.length ? { authorization_servers: servers } : {}),
    ...(options.scopesSupported?.length ? { scopes_supported: options.scopesSupported } : {}),
    bearer_methods_supported: ['header'],
  };
}
