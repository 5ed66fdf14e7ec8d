import type { Tool } from '../../server/tool.js';
import { loadDocument } from './load-document.js';
import { planOperations } from './operations.js';
import { operatorPolicy } from './outbound.js';
import { makeTool } from './tool.js';
import type { OpenApiToolsOptions, OpenApiUpstream } from './types.js';
import { baseUrlFor, resolveUpstream } from './upstream-config.js';

export type { BasicCredentials, ClientCredentials, OpenApiFilter, OpenApiToolsOptions, OpenApiUpstream, SchemeCredentials } from './types.js';
export { OpenApiError } from './types.js';

/**
 * The operations of an OpenAPI 3.0/3.1 document as tools, unprefixed, each calling the API at
 * the configured base URL. `notes` are start-up messages: operations left out and why,
 * security schemes without credentials. Throws OpenApiError when the document cannot be used
 * at all (missing, not OpenAPI 3, no base URL).
 */
export async function openApiTools(upstream: OpenApiUpstream, options: OpenApiToolsOptions): Promise<{ tools: Tool[]; notes: string[] }> {
  const config = resolveUpstream(upstream, options.env ?? process.env);
  const loaded = await loadDocument(config.openapi, options.cwd);
  const base = baseUrlFor(config, loaded);
  const { operations, notes } = planOperations(loaded, config, base);
  const endpoint = { base, policy: operatorPolicy(base), headers: config.headers, timeoutMs: config.timeoutMs, maxResponseBytes: config.maxResponseBytes };
  return { tools: operations.map((op) => makeTool(op, endpoint)), notes };
}
