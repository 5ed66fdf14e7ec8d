/**
 * Identifiers of the MCP extensions toolwright speaks, as they appear in
 * `capabilities.extensions` of both sides.
 */

/** The tasks extension (SEP-2663 "Extension Identifier"). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
