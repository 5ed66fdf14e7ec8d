import { encodeHeaderValue, valueAtPath, type HeaderParam } from '../protocol/header-params.js';

/**
 * The `Mcp-Param-{Name}` headers for one call (streamable-http.mdx "Client
 * Behavior"): the value at each annotated property's exact path, encoded;
 * omitted when the value is absent or null. A value of the wrong type is not
 * mirrored: the server's validation reports it better than a header could.
 */
export function mirrorHeaders(params: readonly HeaderParam[], args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    const value = valueAtPath(args, param.path);
    if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      headers[`mcp-param-${param.name.toLowerCase()}`] = encodeHeaderValue(value);
    }
  }
  return headers;
}
