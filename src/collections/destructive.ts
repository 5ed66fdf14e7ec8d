// Which of a collection's calls may destroy data, from the server's own tools/list at run time
// (a file committed by someone else says nothing trustworthy about its tools). A call to a tool
// the server does not list has no annotations, so the spec's default counts it as destructive.
import { isDestructiveTool } from '../protocol/tool-annotations.js';
import type { Collection, SavedCall } from './types.js';

/** The collection's calls that need a person's yes, in order. */
export function destructiveCalls(collection: Collection, tools: ReadonlyArray<{ name: string; annotations?: Record<string, unknown> }>): SavedCall[] {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return collection.calls.filter((call) => isDestructiveTool(byName.get(call.tool)?.annotations));
}

/** One line per destructive call, "label (tool)", for a confirmation or a refusal. */
export function describeCalls(calls: readonly SavedCall[]): string[] {
  return calls.map((call) => ((call.name || call.id) === call.tool ? call.tool : `${call.name || call.id} (${call.tool})`));
}
