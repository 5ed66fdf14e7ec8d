import { ErrorCode } from '../jsonrpc/errors.js';
import type { JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc/types.js';
import { Method } from '../protocol/methods.js';
import type { Era } from '../protocol/versions.js';
import { InputHandlerError, InputRejectedError } from './errors.js';

/** The error code of a request the user rejected (2025-11-25 client/sampling.mdx "Error Handling"). */
const USER_REJECTED = -1;
import { isInputMethod, paramsProblem } from './inputs/check.js';
import type { InputResponder } from './inputs/responder.js';
import { CAPABILITY_FOR } from './inputs/types.js';
import type { ServerRequestContext, ServerRequestHandler } from './transport.js';

/**
 * The answer when nobody handles server requests: `ping` is answered, the
 * rest (which the client never advertised) are refused with -32601.
 */
export function defaultServerResponse(request: JsonRpcRequest): JsonRpcResponse {
  if (request.method === Method.ping) return { jsonrpc: '2.0', id: request.id, result: {} };
  return errorResponse(request.id, ErrorCode.MethodNotFound, 'Method not found: this client does not handle server requests');
}

export function errorResponse(id: RequestId, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/**
 * Answers a legacy server's `elicitation/create`, `sampling/createMessage` and
 * `roots/list` through an `onInputRequest` handler (2025-11-25 client/*.mdx):
 * the one of the call the question belongs to, else the client's.
 * What goes back to the server is either a checked result or a short error:
 * never a stack, never the handler's own error text (it may hold local detail),
 * which goes to the client's warnings instead.
 */
export function answerLegacyRequests(
  responderFor: (context: ServerRequestContext) => InputResponder | undefined,
  era: () => Era | undefined,
  warn: (message: string) => void,
): ServerRequestHandler {
  return async (request: JsonRpcRequest, context: ServerRequestContext): Promise<JsonRpcResponse> => {
    const { method, id } = request;
    // mrtr.mdx: modern servers do not send requests; their questions ride on results.
    if (!isInputMethod(method) || era() !== 'legacy') return defaultServerResponse(request);
    // Declared for calls that bring their own handler, asked outside one of them: nobody can answer.
    const responder = responderFor(context);
    if (!responder)
      return errorResponse(id, ErrorCode.MethodNotFound, `Not supported: no onInputRequest handler answers ${method} outside the call that brings one`);
    const params = request.params ?? {};
    const problem = paramsProblem(method, params);
    if (problem) return errorResponse(id, ErrorCode.InvalidParams, `Invalid params: ${problem}`);
    const refusal = responder.refusal(method, params);
    if (refusal) {
      // An undeclared method is "not found" (as without a handler); an undeclared mode of a declared one is a bad param.
      const code = responder.capabilities[CAPABILITY_FOR[method]] === undefined ? ErrorCode.MethodNotFound : ErrorCode.InvalidParams;
      return errorResponse(id, code, `Not supported: ${refusal}`);
    }
    try {
      const result = await responder.ask(method, params, toolNameOf(context.relatedRequest), context.signal);
      return { jsonrpc: '2.0', id, result };
    } catch (err) {
      if (context.signal.aborted)
        return errorResponse(id, ErrorCode.InternalError, `Internal error: ${method} was abandoned (the request it belonged to ended)`);
      // sampling.mdx "Error Handling": a rejection is -1, said in the spec's words (never the handler's own text).
      if (err instanceof InputHandlerError && err.cause instanceof InputRejectedError)
        return errorResponse(id, USER_REJECTED, method === 'sampling/createMessage' ? 'User rejected sampling request' : `User rejected ${method}`);
      warn(err instanceof InputHandlerError ? err.message : `answering ${method} failed: ${(err as Error).message}`);
      return errorResponse(id, ErrorCode.InternalError, `Internal error: the client could not answer ${method}`);
    }
  };
}

function toolNameOf(request: JsonRpcRequest | undefined): string | undefined {
  const name = request?.method === Method.toolsCall ? request.params?.name : undefined;
  return typeof name === 'string' ? name : undefined;
}
