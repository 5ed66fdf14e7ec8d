/**
 * Identifiers of the MCP extensions toolwright speaks, as they appear in
 * `capabilities.extensions` of both sides.
 */

/** The tasks extension (SEP-2663 "Extension Identifier"). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The Skills extension (SEP-2640 "Capability"): skills/list, skills/get, skill files as resources. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
