/** Tool name rule (tools.mdx "Tool Names"): 1–128 of [A-Za-z0-9_.-]. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function toolNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'the name must be a string';
  if (TOOL_NAME.test(name)) return undefined;
  if (name.length === 0 || name.length > 128) return `the name must be 1 to 128 characters long (got ${name.length})`;
  return 'the name may contain only ASCII letters, digits, "_", "-" and "."';
}
