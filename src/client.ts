/**
 * toolwright/client: a client for the tools of any MCP server, over stdio,
 * Streamable HTTP or a custom transport, in both protocol eras. The
 * runtime-neutral core (client/core.ts, also `toolwright/client/core`) plus
 * what needs Node (client/node.ts): stdio servers, the loopback login, file
 * token stores.
 */
export * from './client/core.js';
export * from './client/node.js';
