import type { Attributes } from '@opentelemetry/api';
import { recordedId, recordedText } from '../jsonrpc/recorded.js';

/**
 * Attribute names of the OpenTelemetry GenAI semantic conventions for MCP
 * (semantic-conventions-genai, docs/gen-ai/mcp.md; status: development).
 */
export const McpAttr = {
  methodName: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  requestId: 'jsonrpc.request.id',
  statusCode: 'rpc.response.status_code',
  errorType: 'error.type',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  clientAddress: 'client.address',
  clientPort: 'client.port',
} as const;

/** What both sides know of one MCP request before it runs. */
export interface OperationFacts {
  method: string;
  params: Record<string, unknown> | undefined;
  requestId?: string | number | null;
  protocolVersion?: string;
  /** The legacy session's id (modern requests have no session). */
  sessionId?: string;
  /** What carries it: 'stdio', 'http', 'websocket', 'memory', … */
  transport: string;
  serverAddress?: string;
  serverPort?: number;
  clientAddress?: string;
  clientPort?: number;
  /**
   * Whether the tool or prompt a request names exists (the server knows;
   * absent: trusted, as on the client). An unknown name is left out of the
   * span name and the attributes: a client must not choose span names and
   * metric series.
   */
  knownTarget?: (method: string, name: string) => boolean;
}

/** The tool or prompt a request names: the low-cardinality target of the span name. */
function target(method: string, params: Record<string, unknown> | undefined, known?: OperationFacts['knownTarget']): { tool?: string; prompt?: string } {
  const name = params?.name;
  if (typeof name !== 'string') return {};
  if (known && (method === 'tools/call' || method === 'prompts/get') && !known(method, name)) return {};
  if (method === 'tools/call') return { tool: name };
  if (method === 'prompts/get') return { prompt: name };
  return {};
}

/**
 * `{mcp.method.name} {target}` (`tools/call get_weather`, `prompts/get review`),
 * or the method alone. A resource URI is never part of it (high cardinality).
 */
export function operationSpanName(method: string, params: Record<string, unknown> | undefined, known?: OperationFacts['knownTarget']): string {
  const { tool, prompt } = target(method, params, known);
  const name = tool ?? prompt;
  return name === undefined ? recordedText(method) : `${recordedText(method)} ${recordedText(name)}`;
}

/** stdio is a pipe; HTTP and WebSocket run on TCP; an in-process pair has no network at all. */
function networkAttributes(transport: string, into: Attributes): void {
  if (transport === 'stdio') into[McpAttr.networkTransport] = 'pipe';
  else if (transport === 'http' || transport === 'websocket') {
    into[McpAttr.networkTransport] = 'tcp';
    into[McpAttr.networkProtocolName] = transport;
  }
}

/**
 * The attributes known when the request starts (span and histogram share
 * them; the histogram leaves out the per-request ones, see metricAttributes).
 */
export function requestAttributes(facts: OperationFacts): Attributes {
  const attributes: Attributes = { [McpAttr.methodName]: recordedText(facts.method) };
  const { tool, prompt } = target(facts.method, facts.params, facts.knownTarget);
  // Every value a client chose is bounded (jsonrpc/recorded.ts): an attribute lives in the span queue and the collector.
  if (tool !== undefined) {
    attributes[McpAttr.toolName] = recordedText(tool);
    attributes[McpAttr.operationName] = 'execute_tool';
  }
  if (prompt !== undefined) attributes[McpAttr.promptName] = recordedText(prompt);
  const uri = facts.params?.uri;
  if (typeof uri === 'string' && facts.method.startsWith('resources/')) attributes[McpAttr.resourceUri] = recordedText(uri);
  // The spec: not when the id is null or absent (a notification).
  if (facts.requestId !== undefined && facts.requestId !== null) attributes[McpAttr.requestId] = String(recordedId(facts.requestId));
  if (facts.protocolVersion) attributes[McpAttr.protocolVersion] = recordedText(facts.protocolVersion);
  if (facts.sessionId) attributes[McpAttr.sessionId] = recordedText(facts.sessionId);
  networkAttributes(facts.transport, attributes);
  if (facts.serverAddress) {
    attributes[McpAttr.serverAddress] = facts.serverAddress;
    if (facts.serverPort) attributes[McpAttr.serverPort] = facts.serverPort;
  }
  if (facts.clientAddress) {
    attributes[McpAttr.clientAddress] = facts.clientAddress;
    if (facts.clientPort) attributes[McpAttr.clientPort] = facts.clientPort;
  }
  return attributes;
}

/** The histogram's attributes: the span's minus those unique to one request (id, session, URI, client address). */
const PER_REQUEST: ReadonlySet<string> = new Set([McpAttr.requestId, McpAttr.sessionId, McpAttr.resourceUri, McpAttr.clientAddress, McpAttr.clientPort]);
export function metricAttributes(spanAttributes: Attributes, outcome: Outcome): Attributes {
  // Built key by key rather than copied and deleted from: `delete` turns an object into a slow dictionary.
  const attributes: Attributes = {};
  for (const key in spanAttributes) if (!PER_REQUEST.has(key)) attributes[key] = spanAttributes[key];
  if (outcome.errorType !== undefined) attributes[McpAttr.errorType] = outcome.errorType;
  if (outcome.statusCode !== undefined) attributes[McpAttr.statusCode] = outcome.statusCode;
  return attributes;
}

/** How a request ended, in the conventions' terms. */
export interface Outcome {
  /** `tool_error` for an isError result, the JSON-RPC code for an error response, else a class. */
  errorType?: string;
  /** The JSON-RPC error code of an error response. */
  statusCode?: string;
  /** The JSON-RPC error message: the span status description. */
  message?: string;
}

const SUCCESS: Outcome = {};

/** A result: an `isError` tool result is `tool_error`; anything else succeeded. */
export function resultOutcome(method: string, result: unknown): Outcome {
  if (method === 'tools/call' && typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true) {
    return { errorType: 'tool_error' };
  }
  return SUCCESS;
}

/** Longest span status description (an error message, which may quote a client's input). */
const MAX_STATUS_MESSAGE_CHARS = 1024;

/**
 * A failure: an error with a JSON-RPC code (the server's RpcError, the
 * client's McpRpcError) is that code; `fallback` names the rest (the server
 * answers anything else with -32603; the client names timeouts and the like).
 */
export function errorOutcome(err: unknown, fallback: (err: unknown) => Outcome): Outcome {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && Number.isInteger(code)) {
    const text = String(code);
    // The message may quote what the client sent (an unknown name, a URI): bounded like the rest.
    const message = (err as Error).message;
    return { errorType: text, statusCode: text, message: typeof message === 'string' ? recordedText(message, MAX_STATUS_MESSAGE_CHARS) : undefined };
  }
  return fallback(err);
}

/** Bounded JSON of an opted-in argument or result object (attribute values are strings or primitives). */
export function jsonAttribute(value: unknown, maxChars: number): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
