import { isPlainObject } from '../../protocol/content.js';
import { ProtocolViolationError } from '../errors.js';
import { CAPABILITY_FOR, type InputRequestMethod } from './types.js';

/** Most questions one InputRequiredResult may hold: each may reach a human, so a flood is refused. */
const MAX_INPUT_REQUESTS = 32;

export interface PendingInput {
  key: string;
  method: InputRequestMethod;
  params: Record<string, unknown>;
}

export interface InputRequired {
  requests: PendingInput[];
  /** Echoed verbatim on the retry, never inspected (mrtr.mdx "Client Requirements"). */
  requestState?: string;
}

export function isInputMethod(method: unknown): method is InputRequestMethod {
  return typeof method === 'string' && Object.hasOwn(CAPABILITY_FOR, method);
}

/** Reads an InputRequiredResult from an untrusted server. */
export function readInputRequired(method: string, result: Record<string, unknown>): InputRequired {
  const { inputRequests, requestState } = result;
  if (requestState !== undefined && typeof requestState !== 'string') throw new ProtocolViolationError(`${method}: "requestState" must be a string`);
  if (inputRequests !== undefined && !isPlainObject(inputRequests)) throw new ProtocolViolationError(`${method}: "inputRequests" must be an object`);
  // mrtr.mdx: servers MUST include at least one of the two; without either, a retry would loop.
  if (inputRequests === undefined && requestState === undefined) {
    throw new ProtocolViolationError(`${method}: an input_required result must carry "inputRequests" or "requestState"`);
  }
  const entries = Object.entries(inputRequests ?? {});
  if (entries.length > MAX_INPUT_REQUESTS)
    throw new ProtocolViolationError(`${method}: the server asked ${entries.length} questions at once (at most ${MAX_INPUT_REQUESTS} are answered)`);
  const requests = entries.map(([key, request]): PendingInput => {
    if (!isPlainObject(request) || !isInputMethod(request.method)) {
      throw new ProtocolViolationError(
        `${method}: inputRequests[${JSON.stringify(key.slice(0, 64))}] must be an elicitation/create, sampling/createMessage or roots/list request`,
      );
    }
    const params = request.params ?? {};
    const problem = paramsProblem(request.method, params);
    if (problem) throw new ProtocolViolationError(`${method}: inputRequests[${JSON.stringify(key.slice(0, 64))}]: ${problem}`);
    return { key, method: request.method, params: params as Record<string, unknown> };
  });
  return { requests, ...(requestState !== undefined ? { requestState } : {}) };
}

/** What is wrong with a question's params, if anything (only what a handler relies on). */
export function paramsProblem(method: InputRequestMethod, params: unknown): string | undefined {
  if (!isPlainObject(params)) return 'params must be an object';
  switch (method) {
    case 'elicitation/create':
      if (typeof params.message !== 'string') return 'an elicitation needs a "message" string';
      if (params.mode === 'url') return typeof params.url === 'string' ? undefined : 'a url-mode elicitation needs a "url" string';
      return isPlainObject(params.requestedSchema) ? undefined : 'a form-mode elicitation needs a "requestedSchema" object';
    case 'sampling/createMessage':
      if (!Array.isArray(params.messages)) return 'a sampling request needs a "messages" array';
      return typeof params.maxTokens === 'number' ? undefined : 'a sampling request needs a "maxTokens" number';
    case 'roots/list':
      return undefined;
  }
}

/**
 * Checks what the handler answered and returns a JSON-clean copy (no
 * undefined, no functions, no cycles), or says what is wrong with it.
 */
export function checkInputResult(method: InputRequestMethod, value: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  let clean: unknown;
  try {
    clean = JSON.parse(JSON.stringify(value) ?? 'null');
  } catch (err) {
    return { ok: false, problem: `it is not JSON (${(err as Error).message})` };
  }
  const problem = resultProblem(method, clean);
  return problem ? { ok: false, problem } : { ok: true, value: clean as Record<string, unknown> };
}

function resultProblem(method: InputRequestMethod, value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'expected an object';
  switch (method) {
    case 'elicitation/create':
      if (value.action !== 'accept' && value.action !== 'decline' && value.action !== 'cancel') return '"action" must be "accept", "decline" or "cancel"';
      if (value.content === undefined) return undefined;
      if (!isPlainObject(value.content)) return '"content" must be an object';
      for (const [name, field] of Object.entries(value.content)) {
        // elicitation.mdx: forms hold primitives only (and string arrays for multi-select).
        const ok =
          typeof field === 'string' ||
          typeof field === 'boolean' ||
          typeof field === 'number' ||
          (Array.isArray(field) && field.every((v) => typeof v === 'string'));
        if (!ok) return `content.${name} must be a string, number, boolean or array of strings`;
      }
      return undefined;
    case 'sampling/createMessage': {
      if (value.role !== 'user' && value.role !== 'assistant') return '"role" must be "user" or "assistant"';
      if (typeof value.model !== 'string') return '"model" must be a string';
      if (value.stopReason !== undefined && typeof value.stopReason !== 'string') return '"stopReason" must be a string';
      const blocks = Array.isArray(value.content) ? value.content : [value.content];
      if (blocks.length === 0 || !blocks.every((b) => isPlainObject(b) && typeof b.type === 'string'))
        return '"content" must be a content block (or an array of them) with a "type"';
      return undefined;
    }
    case 'roots/list': {
      if (!Array.isArray(value.roots)) return '"roots" must be an array';
      for (const root of value.roots) {
        if (!isPlainObject(root) || typeof root.uri !== 'string') return 'every root needs a "uri" string';
        // roots.mdx: a root MUST be a file:// URI.
        if (!root.uri.startsWith('file://')) return `root ${JSON.stringify(root.uri.slice(0, 80))} is not a file:// URI`;
        if (root.name !== undefined && typeof root.name !== 'string') return 'a root\'s "name" must be a string';
      }
      return undefined;
    }
  }
}
