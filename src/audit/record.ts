import type { RequestId } from '../jsonrpc/types.js';

/**
 * How a call ended. Mirrors the pipeline's `CallStatus` (kept as its own type
 * so that audit/ does not import from server/, which sits above it).
 */
export type AuditStatus =
  | 'ok'
  | 'input_required'
  | 'tool_error'
  | 'invalid_arguments'
  | 'refused'
  | 'timeout'
  | 'cancelled'
  | 'internal_error'
  | 'protocol_error';

/**
 * Why a request did not run as asked, beside its status (a `refused` call says which policy
 * said no; issue 30: a rate-limited call and a declined approval read alike):
 * - `rate_limit`: over a rate limit (per caller or per tool)
 * - `scope`: the caller's credentials lack the scopes it needs
 * - `approval_declined`: the user did not approve a destructive tool; `approval_failed`: asking failed
 * - `overloaded`: no slot among the calls in flight, and the queue was full
 * - `arguments_too_large`, `result_too_large`: over `limits.maxArgumentBytes` / `maxResultBytes`
 * - `validation`: the arguments do not match the schema
 * - `missing_capability`: the tool needs something the client did not declare
 * - `timeout`, `cancelled` (by the client, or its connection went away), `shutting_down`
 * - `state_unavailable`: shared state (Redis) could not be reached for the limits
 *
 * The authorization-server facade's refusals (`method` `oauth/…`) use the OAuth error they were
 * answered with (`invalid_request`, `invalid_client`, `invalid_client_metadata`, `invalid_grant`,
 * `invalid_scope`, `invalid_target`, `unsupported_grant_type`, `unsupported_response_type`,
 * `access_denied`), `rate_limit`, or: `invalid_redirect_uri` (a redirect URI the client did not
 * register), `cross_site` (a consent answer or provider callback without the browser's cookie, its
 * CSRF token, or from a foreign origin), `expired` (a sign-in step expired or already used),
 * `replay` (a used code or refresh token presented again: the grant is ended), `provider_unavailable`
 * (the identity provider could not be reached).
 */
export type AuditReason =
  | 'rate_limit'
  | 'scope'
  | 'approval_declined'
  | 'approval_failed'
  | 'overloaded'
  | 'arguments_too_large'
  | 'result_too_large'
  | 'validation'
  | 'missing_capability'
  | 'timeout'
  | 'cancelled'
  | 'shutting_down'
  | 'state_unavailable'
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_client_metadata'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'cross_site'
  | 'expired'
  | 'replay'
  | 'provider_unavailable';

/** One `tools/call` (or another audited request: see `method`), however it ended: what the audit trail keeps. */
export interface AuditRecord {
  /** When the call ended, ISO 8601 in UTC. */
  time: string;
  era: 'modern' | 'legacy';
  protocolVersion: string;
  /** The authenticated caller's id (`caller.id`), when the transport knew it. */
  principal: string | null;
  /** The OAuth client the caller's token was issued to (`caller.clientId`); absent when unknown. */
  clientId?: string;
  /** The scopes the caller's credentials granted (`caller.scopes`); absent when they carried no scope information. */
  scopes?: string[];
  /** The caller's tenant (`caller.tenant`); absent when it has none. */
  tenant?: string;
  /**
   * The request's method when it is not `tools/call` (absent: `tools/call`, as in every
   * record written before other requests were audited): `prompts/get`, `resources/read`,
   * `completion/complete`, `resources/subscribe`.
   */
  method?: string;
  /**
   * What the request named, even when no such thing exists: the tool name; for other
   * methods the prompt name, the resource URI, or the completion's reference
   * (`prompt <name>`, `resource <uri or template>`).
   */
  tool: string;
  /** The arguments as JSON text, secrets redacted and size capped (always valid JSON). */
  argumentsJson: string;
  status: AuditStatus;
  /** The result the client got had `isError: true`. */
  isError: boolean;
  durationMs: number;
  /** Links the record to the server log (set on internal errors). */
  correlationId: string | null;
  requestId: RequestId | null;
  clientName: string | null;
  /** The JSON-RPC error code, when the call was answered with a protocol error. */
  errorCode: number | null;
  /** Why it did not run as asked (see AuditReason); absent when the status says all (`ok`, `tool_error`, …) and in records written before it existed. */
  reason?: AuditReason;
  /** Which server instance answered (`ToolServer` option `instanceId`, default `host:pid`); absent in records written before it existed. */
  instance?: string;
  /** The upstream that served it, when a gateway relayed it (its mount's name); absent for the server's own entries and in records written before it existed. */
  upstream?: string;
}

/**
 * Where audit records go. `record` must not return before the record is as
 * durable as the sink promises: the pipeline waits for it before the reply is
 * written, so an answered call is never missing from the trail.
 */
export interface AuditSink {
  record(entry: AuditRecord): void | Promise<void>;
  /**
   * Writes what a batching sink holds now instead of at the end of the turn.
   * A transport calls it when a group of requests has been handled, so their
   * answers can leave before it starts on the next group.
   */
  flush?(): void;
  /**
   * Checks now that records can be written (opens the file, creating it), throwing what a
   * record would. A server checks it at start-up, and to know a failed trail is back.
   */
  probe?(): void;
  /**
   * Connects (and migrates) a sink that needs to before its first record, rejecting with why
   * the trail cannot be written: `toolwright serve` awaits it at start-up, before `probe`.
   * A sink without it is ready when built; one that has it connects on its first record too.
   */
  ready?(): Promise<void>;
  close?(): void;
}
