/**
 * Typed failures of the client. Every error the client throws is a
 * ToolClientError, so callers can tell "the server said no" (McpRpcError)
 * from "the server could not be reached" (ConnectionError) from "the server
 * said something invalid" (ProtocolViolationError). A tool that fails is not
 * an error here: its `isError: true` result is returned.
 */
export class ToolClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The server answered with a JSON-RPC error. */
export class McpRpcError extends ToolClientError {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** The HTTP status the error travelled with, on HTTP. */
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

export type ConnectionFailure =
  | 'spawn'
  | 'exit'
  | 'http'
  | 'network'
  | 'closed'
  | 'session-expired'
  | 'unsupported-version'
  | 'connect-timeout'
  /** A stdio server said on stderr that it serves another transport (StdioTarget.detectWrongTransport). */
  | 'wrong-transport';

/** The server could not be started or reached, or went away. */
export class ConnectionError extends ToolClientError {
  readonly httpStatus?: number;
  /** The end of the server's stderr, when it was captured. */
  readonly stderr?: string;
  /** What the body of an HTTP error response said, in one line (its JSON-RPC or OAuth error message when it had one). */
  readonly detail?: string;

  constructor(
    message: string,
    readonly reason: ConnectionFailure,
    options: { cause?: unknown; httpStatus?: number; stderr?: string; detail?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.httpStatus = options.httpStatus;
    this.stderr = options.stderr;
    this.detail = options.detail;
  }
}

/** No response within the time allowed; the request was cancelled. */
export class TimeoutError extends ToolClientError {
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} timed out after ${timeoutMs} ms; the request was cancelled`);
  }
}

/** The caller aborted the request (its AbortSignal fired); the request was cancelled. */
export class CancelledError extends ToolClientError {
  constructor(
    readonly method: string,
    reason?: unknown,
  ) {
    super(`${method} was cancelled${reason instanceof Error && reason.message ? `: ${reason.message}` : ''}`);
  }
}

/** The server sent something the protocol does not allow (bad message, bad result shape, oversized message). */
export class ProtocolViolationError extends ToolClientError {}

/** A tool's `structuredContent` does not match the `outputSchema` it declared. */
export class OutputValidationError extends ToolClientError {
  constructor(
    readonly toolName: string,
    readonly problems: string[],
  ) {
    super(`Tool ${toolName} returned structuredContent that does not match its outputSchema:\n- ${problems.join('\n- ')}`);
  }
}

/**
 * The server answered with `resultType: "input_required"` (mrtr.mdx) and the
 * client has no `onInputRequest` handler to answer it (or the server sent it
 * on a request that cannot take answers).
 */
export class InputRequiredError extends ToolClientError {
  constructor(
    readonly method: string,
    readonly inputRequests: unknown,
  ) {
    super(`${method}: the server asked for more input (resultType "input_required"); give the client an onInputRequest handler to answer it`);
  }
}

/** The server kept asking for input past the client's `maxInputRounds`. */
export class InputRoundsExceededError extends ToolClientError {
  constructor(
    readonly toolName: string,
    readonly maxRounds: number,
  ) {
    super(`tools/call ${toolName}: the server still asked for input after ${maxRounds} rounds of answers; the call was abandoned`);
  }
}

/**
 * The server asked for input this client never declared it could give (a
 * method or elicitation mode missing from its capabilities). Servers MUST NOT
 * do that (mrtr.mdx "Server Requirements"), so this is the server's bug.
 */
export class UnsupportedInputRequestError extends ProtocolViolationError {
  constructor(
    readonly method: string,
    reason: string,
  ) {
    super(`the server sent an input request this client did not declare support for (${method}): ${reason}`);
  }
}

/**
 * Authorization failed: the server's or the authorization server's metadata
 * could not be found or is not safe to use, the user or the authorization
 * server refused, the authorization response did not check out (state, iss),
 * or the server still refuses after the allowed re-authorizations. The message
 * never holds a token, a code or a client secret.
 */
export class AuthorizationError extends ToolClientError {
  constructor(
    message: string,
    /** The OAuth error code when an authorization server or resource server gave one (e.g. `invalid_grant`, `insufficient_scope`), or `login_required`, or `no_resource_metadata` (a server that asks for authorization but publishes no OAuth metadata). */
    readonly oauthError?: string,
    options?: { cause?: unknown; scope?: string },
  ) {
    super(message, options);
    this.scope = options?.scope;
  }

  /** The scope the authorization would have asked for, when known (to log in with it). */
  readonly scope?: string;
}

/** The `onInputRequest` handler threw, or returned something that is not a valid answer. */
export class InputHandlerError extends ToolClientError {
  constructor(
    readonly method: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`the onInputRequest handler could not answer ${method}: ${problem}`, options);
  }
}

/**
 * Thrown by an `onInputRequest` handler when the person rejects the request (a sampling
 * request they will not send to a model). A legacy server is answered with error -1 "User
 * rejected sampling request" (2025-11-25 client/sampling.mdx "Error Handling"); a modern call
 * ends, since the server is not waiting for an answer (2026-07-28 sampling.mdx).
 */
export class InputRejectedError extends ToolClientError {
  constructor(message = 'the person rejected the request') {
    super(message);
  }
}
