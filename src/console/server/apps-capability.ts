import { MCP_APP_MIME_TYPE } from '../../server/apps/constants.js';

/** What the console's client tells servers: it shows MCP Apps (the ui extension, SEP-1865). */
export const APPS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MCP_APP_MIME_TYPE] } } };
