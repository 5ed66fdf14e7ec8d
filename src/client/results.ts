import type { JsonRpcResponse } from '../jsonrpc/types.js';
import { contentBlockProblem, isPlainObject } from '../protocol/content.js';
import { META, type Implementation } from '../protocol/meta.js';
import { InputRequiredError, McpRpcError, ProtocolViolationError } from './errors.js';
import type { CallToolResult } from './types.js';

/**
 * Checks on what the server sends back. Nothing from the server is trusted:
 * a shape the protocol does not allow is a ProtocolViolationError, never a
 * value handed to the caller.
 */
export function unwrapResponse(
  method: string,
  message: JsonRpcResponse,
  httpStatus?: number,
  acceptInputRequired = false,
  acceptTask = false,
): Record<string, unknown> {
  if ('error' in message) {
    const error = message.error as unknown;
    if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
      throw new ProtocolViolationError(`${method}: the server sent a malformed error object`);
    }
    throw new McpRpcError(error.code as number, clip(error.message, 1_000), error.data, httpStatus);
  }
  const result = (message as { result?: unknown }).result;
  if (!isPlainObject(result)) throw new ProtocolViolationError(`${method}: the result must be a JSON object`);
  checkResultType(method, result, acceptInputRequired, acceptTask);
  return result;
}

/**
 * basic/index "resultType": absent means complete (older servers); an
 * unknown value MUST be treated as invalid. `input_required` passes only
 * where the caller answers it.
 */
function checkResultType(method: string, result: Record<string, unknown>, acceptInputRequired: boolean, acceptTask: boolean): void {
  const type = result.resultType;
  if (type === undefined || type === 'complete') return;
  // Only a request that declared the tasks extension may be answered with a task (SEP-2663).
  if (type === 'task' && acceptTask) return;
  if (type === 'input_required') {
    if (acceptInputRequired) return;
    throw new InputRequiredError(method, result.inputRequests);
  }
  throw new ProtocolViolationError(`${method}: unknown resultType ${JSON.stringify(type)}`);
}

export function readCallResult(result: Record<string, unknown>): CallToolResult {
  if (!Array.isArray(result.content)) throw new ProtocolViolationError('tools/call: the result has no "content" array');
  for (let i = 0; i < result.content.length; i++) {
    const problem = contentBlockProblem(result.content[i]);
    if (problem) throw new ProtocolViolationError(`tools/call: content[${i}] is invalid: ${problem}`);
  }
  if (result.isError !== undefined && typeof result.isError !== 'boolean') {
    throw new ProtocolViolationError('tools/call: "isError" must be a boolean');
  }
  if (result._meta !== undefined && !isPlainObject(result._meta)) throw new ProtocolViolationError('tools/call: "_meta" must be an object');
  return result as CallToolResult;
}

interface ListPage {
  tools: unknown[];
  nextCursor?: string;
  /** Freshness in ms; absent or invalid counts as 0 (caching.mdx). */
  ttlMs: number;
}

export function readListPage(result: Record<string, unknown>): ListPage {
  if (!Array.isArray(result.tools)) throw new ProtocolViolationError('tools/list: the result has no "tools" array');
  const cursor = result.nextCursor;
  if (cursor !== undefined && cursor !== null && (typeof cursor !== 'string' || cursor.length > 4_096)) {
    throw new ProtocolViolationError('tools/list: "nextCursor" must be a string');
  }
  const ttl = result.ttlMs;
  return {
    tools: result.tools,
    nextCursor: typeof cursor === 'string' && cursor !== '' ? cursor : undefined,
    ttlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : 0,
  };
}

interface DiscoverInfo {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  serverInfo?: Implementation;
  instructions?: string;
}

export function readDiscover(result: Record<string, unknown>): DiscoverInfo {
  const versions = result.supportedVersions;
  if (!Array.isArray(versions) || !versions.every((v) => typeof v === 'string')) {
    throw new ProtocolViolationError('server/discover: "supportedVersions" must be an array of strings');
  }
  const meta = isPlainObject(result._meta) ? result._meta : undefined;
  return {
    supportedVersions: versions as string[],
    capabilities: readCapabilities('server/discover', result.capabilities),
    serverInfo: readImplementation(meta?.[META.serverInfo]),
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

interface InitializeInfo {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo?: Implementation;
  instructions?: string;
}

export function readInitialize(result: Record<string, unknown>): InitializeInfo {
  if (typeof result.protocolVersion !== 'string') throw new ProtocolViolationError('initialize: "protocolVersion" must be a string');
  return {
    protocolVersion: result.protocolVersion,
    capabilities: readCapabilities('initialize', result.capabilities),
    serverInfo: readImplementation(result.serverInfo),
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

function readCapabilities(method: string, caps: unknown): Record<string, unknown> {
  if (caps === undefined) return {};
  if (!isPlainObject(caps)) throw new ProtocolViolationError(`${method}: "capabilities" must be an object`);
  return caps;
}

/** serverInfo is display-only (discover.mdx); a malformed one is dropped, not fatal. */
function readImplementation(value: unknown): Implementation | undefined {
  if (!isPlainObject(value) || typeof value.name !== 'string' || typeof value.version !== 'string') return undefined;
  return value as Implementation;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
