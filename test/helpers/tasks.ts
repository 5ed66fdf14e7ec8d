import { defineTool, type ToolContext } from '../../src/server/tool.js';
import { MODERN, modernMeta } from './wire.js';

/** The tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `_meta` of a request whose client declares the tasks extension. */
export const WITH_TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } } };

/** `_meta` of a request whose client declares the tasks extension and elicitation. */
export const WITH_TASKS_AND_ELICITATION = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (a handler that honours cancellation). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/** A task tool (`ask`, always a task) that asks the user's name under the input key `name` and greets them. */
export function askNameTaskTool() {
  return defineTool({
    name: 'ask',
    description: 'd',
    inputSchema: { type: 'object' },
    task: 'always',
    handler: async (_args, ctx: ToolContext) => {
      const answer = await ctx.elicit('Your name?', { type: 'object', properties: { name: { type: 'string' } } }, { key: 'name' });
      return `Hello, ${answer.content?.name}`;
    },
  });
}

/** One modern request to a `toolwright serve --http` URL, declaring the tasks extension; the parsed answer. */
export async function tasksRpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
  name: string,
  meta: Record<string, unknown> = WITH_TASKS,
): Promise<Record<string, any>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernMeta(meta) } }),
  });
  return (await res.json()) as Record<string, any>;
}
