// What a client should assume a tool does, by the spec's defaults for ToolAnnotations (hints, not
// guarantees): readOnlyHint defaults to false, and destructiveHint to true, meaningful only when
// the tool is not read-only. So a tool that says nothing may destroy, and only `readOnlyHint:
// true` or `destructiveHint: false` says otherwise. The console's Tools and Collections screens
// and `toolwright run-collection` ask before such calls with this one rule. No imports: the
// console's front end (browser code) shares it.

/** Whether a tool with these annotations may destroy data, by the spec's defaults. */
export function isDestructiveTool(annotations: Record<string, unknown> | undefined): boolean {
  return annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false;
}
