import { ToolClient } from '../client/client.js';
import type { ListedTool } from '../client/types.js';
import type { Caller } from '../policy/auth/caller.js';
import type { ToolServer } from '../server/server.js';
import type { Tool, ToolContext, ToolResult } from '../server/tool.js';
import { InProcessTransport } from './memory-transport.js';
import { rankTools } from './search-rank.js';
import { askCaller, callerInputs, clientSafe } from './relay-call.js';
import { describe } from './upstream-link.js';

/** The label of the in-process connections search mode lists and calls through: their listings are not narrowed. */
const SEARCH_TRANSPORT = 'gateway-search';
const SEARCH_TOOLS = 'search_tools';
const CALL_TOOL = 'call_tool';
const DEFAULT_MATCHES = 10;
const MAX_MATCHES = 50;

export interface SearchCatalogOptions {
  /** Matches `search_tools` returns at most when the caller gives no `limit` (default 10; a caller may ask for up to 50). */
  matches?: number;
}

/**
 * Search mode, for catalogues too large for a model's context: `tools/list` shows only
 * `search_tools` (a query → the best matches by name and description, with their input schemas)
 * and `call_tool` (a name and arguments → that tool's result). Every other tool stays
 * registered and callable by name. Both search and call as the calling client, through
 * the server's own dispatch (an in-process connection with the caller's identity and input
 * capabilities): the target's visibility, scopes, rate limits, approval, argument validation and
 * audit apply to the call exactly as to a direct one, and a tool the caller may not see is
 * neither found nor called. What the target asks of the client (approval included) is asked of
 * the caller of `call_tool`. Returns a function that turns search mode off.
 */
export function useSearchCatalog(server: ToolServer, options: SearchCatalogOptions = {}): () => void {
  const matches = Math.min(Math.max(1, Math.floor(options.matches ?? DEFAULT_MATCHES)), MAX_MATCHES);
  server.addTool(searchTool(server, matches), callTool(server));
  let on = true;
  server.use('tools/list', async (ctx, next) => {
    const result = (await next()) as { tools?: Array<{ name: string }> };
    if (!on || ctx.transport === SEARCH_TRANSPORT || !Array.isArray(result.tools)) return result;
    return { ...result, tools: result.tools.filter((t) => t.name === SEARCH_TOOLS || t.name === CALL_TOOL) };
  });
  return () => {
    on = false;
    server.tools.remove(SEARCH_TOOLS);
    server.tools.remove(CALL_TOOL);
  };
}

function searchTool(server: ToolServer, matches: number): Tool {
  return {
    name: SEARCH_TOOLS,
    description:
      'Finds tools of this server by what they do. Give a few words (e.g. "read file", "create issue"); returns the best matches with their descriptions and input schemas. Call one with call_tool.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'Words describing the tool wanted' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_MATCHES, description: `Matches at most (default ${matches})` },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async (args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> => {
      const listed = await asCaller(server, ctx, (client) => client.listTools({ refresh: true, signal: ctx.signal }));
      if (!Array.isArray(listed)) return listed;
      const own = listed.filter((t) => t.name !== SEARCH_TOOLS && t.name !== CALL_TOOL);
      const found = rankTools(own, String(args.query), typeof args.limit === 'number' ? args.limit : matches);
      const tools = found.map((t: ListedTool) => ({
        name: t.name,
        ...(t.title !== undefined ? { title: t.title } : {}),
        ...(t.description !== undefined ? { description: t.description } : {}),
        inputSchema: t.inputSchema,
      }));
      const text = tools.length ? JSON.stringify(tools) : `no tool matches ${JSON.stringify(String(args.query).slice(0, 100))}; try other words`;
      return { content: [{ type: 'text', text }], structuredContent: { tools } };
    },
  } as Tool;
}

function callTool(server: ToolServer): Tool {
  return {
    name: CALL_TOOL,
    description: 'Calls a tool found with search_tools: its name, and its arguments as its input schema describes them.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 256, description: 'The tool, as search_tools named it' },
        arguments: { type: 'object', description: 'Its arguments' },
      },
      required: ['name'],
      additionalProperties: false,
    },
    handler: async (args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> => {
      const name = String(args.name);
      if (name === SEARCH_TOOLS || name === CALL_TOOL) return failure(`call ${name} directly, not through call_tool`);
      const target = (args.arguments ?? {}) as Record<string, unknown>;
      return asCaller(server, ctx, async (client) => {
        const result = await client.callTool(name, target, {
          signal: ctx.signal,
          onProgress: (p) => ctx.progress(p.progress, p.total, p.message),
          onInputRequest: (request) => askCaller(request, ctx),
          inputCapabilities: callerInputs(ctx),
        });
        return result as ToolResult;
      });
    },
  } as Tool;
}

/**
 * Runs `work` with a client of this same server that is this call's caller: an in-process
 * connection with its identity, in the modern era, declaring the input capabilities the caller
 * declared. Its failures are isError results; the caller's cancellation is its own.
 */
async function asCaller<T>(server: ToolServer, ctx: ToolContext, work: (client: ToolClient) => Promise<T>): Promise<T | ToolResult> {
  const transport = new InProcessTransport(server, () => {}, { transport: SEARCH_TRANSPORT, caller: ctx.caller as Caller });
  const client = new ToolClient({ transport }, { era: 'modern', inputCapabilities: ['elicitation', 'sampling', 'roots'], onWarning: () => {} });
  try {
    await client.connect();
    return await work(client);
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return failure(clientSafe(describe(err)));
  } finally {
    await client.close().catch(() => {});
  }
}

function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
