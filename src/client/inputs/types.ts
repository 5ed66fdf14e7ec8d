/**
 * What a server may ask the client for while it serves a request: a user's
 * answer (elicitation), a model's completion (sampling), or the client's roots.
 * Modern servers ask inside an InputRequiredResult (mrtr.mdx); legacy servers
 * send these as JSON-RPC requests (2025-11-25 client/*.mdx).
 */
export type InputRequestMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** The client capability each kind of question needs. */
export type InputCapability = 'elicitation' | 'sampling' | 'roots';

export const CAPABILITY_FOR: Readonly<Record<InputRequestMethod, InputCapability>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

export const INPUT_CAPABILITIES: readonly InputCapability[] = ['elicitation', 'sampling', 'roots'];

/** One question from the server, as the `onInputRequest` handler receives it. */
export interface InputRequest {
  method: InputRequestMethod;
  /**
   * The request's params exactly as the server sent them (untrusted: show
   * `message` as plain text, never as markup). elicitation/create: `message`,
   * `requestedSchema` (form mode) or `url` (url mode); sampling/createMessage:
   * `messages`, `maxTokens`, …; roots/list: `{}`.
   */
  params: Record<string, unknown>;
  /** The tool whose call is asking, when the client knows it. */
  toolName?: string;
  /** The question's key in a modern server's `inputRequests` (absent for a legacy server's request). */
  key?: string;
  /**
   * Aborted when the answer is no longer wanted: the call was cancelled or timed
   * out, the server withdrew the question, another answer of the same round
   * failed, or the connection closed. Stop prompting when it fires.
   */
  signal: AbortSignal;
}

/** The answer to `elicitation/create` (client/elicitation.mdx "Response Actions"). */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  /** The submitted form, for `accept` in form mode. */
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Record<string, unknown>;
}

/** A content block of a sampled message (text, image, audio, tool_use, tool_result). */
export interface SamplingContent {
  type: string;
  [key: string]: unknown;
}

/** The answer to `sampling/createMessage` (client/sampling.mdx). */
export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  /** The model that produced the message. */
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

/** The answer to `roots/list` (client/roots.mdx): `file://` URIs only. */
export interface ListRootsResult {
  roots: Array<{ uri: string; name?: string; _meta?: Record<string, unknown> }>;
  _meta?: Record<string, unknown>;
}

export type InputResult = ElicitResult | CreateMessageResult | ListRootsResult;

/**
 * Answers the server's questions, usually by asking a human. Called once per
 * question; questions of one round are asked concurrently. Throwing fails the
 * call (modern era) or answers the server with an error (legacy era).
 */
export type InputRequestHandler = (request: InputRequest) => InputResult | Promise<InputResult>;
