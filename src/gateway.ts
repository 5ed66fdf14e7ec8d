/**
 * toolwright/gateway: other MCP servers (stdio, Streamable HTTP, a ToolServer in process) mounted on a
 * ToolServer as its own tools, prompts and resources, behind every defence the server has
 * (docs/gateway.md). A separate entry point: a server that mounts nothing never loads the client.
 */
export * from './gateway/index.js';
