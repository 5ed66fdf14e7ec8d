/** The MCP Apps extension (SEP-1865): its id in `capabilities.extensions`, and its resources' MIME type. */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The `ui/initialize` protocol version this implementation speaks (the extension's stable release). */
export const MCP_APPS_PROTOCOL_VERSION = '2026-01-26';
