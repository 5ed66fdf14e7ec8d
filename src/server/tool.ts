import type { Caller } from '../policy/auth/caller.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import type { ContentBlock } from '../protocol/content.js';
import type { ClientCapabilities, Implementation, LogLevel } from '../protocol/meta.js';
import type { Era } from '../protocol/versions.js';
import type { RequestId } from '../jsonrpc/types.js';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { StandardSchemaV1 } from '../schema/standard.js';
import type { CreateMessageResult, ElicitResult, ListRootsResult } from './inputs/responses.js';
import type { TaskMode } from './primitives/tasks/policy.js';

export type { CreateMessageResult, ElicitResult, ListRootsResult };

/** The flat form an elicitation may ask for (client/elicitation.mdx: primitive properties only). */
export interface ElicitSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** Options of a question to the client. `key` names it in `inputRequests` (default: kind and position). */
export interface AskOptions {
  key?: string;
}

/** A JSON Schema object; a tool's input schema must have `type: "object"` at its root. */
export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** A complete tool result, as a handler may return it. */
export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** What a handler knows about the call it serves and can do during it. */
export interface ToolContext {
  /** Aborted when the client cancels, disconnects, or the call times out. */
  readonly signal: AbortSignal;
  readonly requestId: RequestId;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo?: Implementation;
  /**
   * Who is calling, as the transport verified it: `id`, `subject`,
   * `clientId`, granted `scopes`, the token's verified `claims`, `method`
   * (how it authenticated) and `tenant`; ANONYMOUS_CALLER (`method`
   * and `id` 'anonymous') when nobody authenticated the request. Never
   * the token itself (the client's token is not for forwarding: upstream
   * APIs take their own credentials).
   */
  readonly caller: Caller;
  /** @deprecated `caller.id`; undefined for the anonymous caller. */
  readonly principal?: string;
  /** @deprecated `caller`; undefined for the anonymous caller and for a caller the transport named by a bare id (stdio's `principal`). */
  readonly auth?: AuthInfo;
  /** Reports progress; sent only when the client asked for it, only while the call runs, only when increasing. */
  progress(done: number, total?: number, message?: string): void;
  /** Sends a log message to the client when it asked for that level (and always to the server log at debug). */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Stops the call unless the client declared `capability` (e.g. "sampling"):
   * modern clients get -32021 MissingRequiredClientCapability, legacy clients
   * an `isError` result (basic/index: a server MUST NOT rely on undeclared capabilities).
   */
  requireClientCapability(capability: 'sampling' | 'elicitation' | 'roots'): void;
  /**
   * Asks the user through the client (form elicitation). Modern clients get an
   * InputRequiredResult and retry with the answer, which re-runs the handler,
   * so ask before acting; legacy clients get an `elicitation/create` request.
   */
  elicit(message: string, requestedSchema: ElicitSchema, options?: AskOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`); same rules as `elicit`. */
  sample(params: { messages: unknown[]; maxTokens: number; systemPrompt?: string; [key: string]: unknown }, options?: AskOptions): Promise<CreateMessageResult>;
  /** Asks the client for its roots (`roots/list`); same rules as `elicit`. */
  listRoots(options?: AskOptions): Promise<ListRootsResult>;
}

/** Any JSON object, its values unchecked: the input type when a schema says nothing the types can use. */
// biome-ignore lint/suspicious/noExplicitAny: handlers read such input's properties without narrowing each one
type AnyJsonObject = Record<string, any>;

/**
 * What a handler receives for an input schema: a Standard Schema's output type
 * (zod, valibot, arktype); the type a literal JSON Schema describes (written
 * inline in `defineTool`, or a constant declared `as const`); otherwise — a
 * schema typed only as `JsonSchema` or built at run time — any JSON object.
 */
type InferInput<S> = S extends StandardSchemaV1 ? StandardOutput<S> : JsonSchemaInput<S, IsLiteral<S>>;
// `Literal` is worked out before S is narrowed to JSONSchema, a recursive type IsLiteral must not walk.
type JsonSchemaInput<S, Literal> = Literal extends true ? (S extends JSONSchema ? JsonSchemaValue<S> : AnyJsonObject) : AnyJsonObject;
type StandardOutput<S> = S extends { readonly '~standard': { readonly types?: { readonly output: infer O } } }
  ? unknown extends O
    ? AnyJsonObject
    : O
  : AnyJsonObject;
/**
 * Whether a schema is known to its last keyword: no part of it typed as an open
 * record (a `JsonSchema` constant, a function returning one). Such a part says
 * nothing json-schema-to-ts can use, and makes it explore every keyword's type
 * (minutes of type-checking), so the whole schema keeps today's any-object type.
 */
type IsLiteral<T> = T extends readonly (infer E)[]
  ? IsLiteral<E>
  : T extends object
    ? string extends keyof T
      ? false
      : { [K in keyof T]-?: IsLiteral<T[K]> }[keyof T] extends true
        ? true
        : false
    : true;
/**
 * json-schema-to-ts, with properties that have a `default` kept optional: the
 * validator checks arguments but does not fill defaults in. A schema it cannot
 * read as an object (a boolean schema, a non-literal part) gives any JSON object.
 */
type JsonSchemaValue<S extends JSONSchema> =
  FromSchema<S, { keepDefaultedPropertiesOptional: true }> extends infer V ? (V extends object ? V : AnyJsonObject) : never;

/**
 * `Args` is what the handler receives, worked out from `S` once, where the
 * schema is known (`defineTool`); the handler takes it as a separate parameter
 * so that relating two tools never has to evaluate a schema's type in general.
 */
export interface Tool<S extends JsonSchema | StandardSchemaV1 = JsonSchema | StandardSchemaV1, Args = InferInput<S>> {
  /** 1–128 characters of [A-Za-z0-9_.-], unique within the server. */
  name: string;
  title?: string;
  description: string;
  inputSchema: S;
  outputSchema?: JsonSchema | StandardSchemaV1;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** The gateway upstream it is relayed to (set by `mount`): its audit records name it (`upstream`), its spans carry it (`toolwright.upstream`). */
  upstream?: string;
  /** How long a call may run before it fails with a timeout result (server default: 60 s). */
  timeoutMs?: number;
  /**
   * 'always': every call waits for the user's approval (an elicitation showing
   * the arguments); 'never': none does. Default: approval when
   * `annotations.destructiveHint` is true. The server's `approval` option can
   * require it for all tools or turn it off.
   */
  approval?: 'always' | 'never';
  /**
   * Decides per call, from its validated arguments, whether that call waits
   * for the user's approval, in place of the `destructiveHint` rule (a tool
   * whose danger depends on what it is asked to do: `execute_command` asks
   * for a writing command, not for an allow-listed read-only one). Used when
   * `approval` is not set and the server's `approval` mode is 'destructive';
   * a hook that throws counts as "ask". Annotations stay hints for clients.
   */
  needsApproval?: (args: Record<string, unknown>) => boolean;
  /**
   * Scopes a caller's token must grant to call this tool (all of them; a
   * broader scope implying one counts). Checked for callers whose credentials
   * carry scopes (OAuth tokens, API keys); a caller lacking them gets HTTP 403
   * `insufficient_scope` naming them, and `tools/list` leaves the tool out.
   * The config's `server.auth.toolScopes` wins over this.
   */
  scopes?: string[];
  /**
   * Scopes a caller must hold to know this tool exists: without them it is
   * absent from `tools/list` and calling it is the unknown-tool error.
   */
  visibilityScopes?: string[];
  /**
   * When a call becomes a task (the tasks extension: the client polls for the
   * result): 'never' (default), 'always', 'required' (clients without the
   * extension are refused with -32021) or { afterMs } (only when it has not
   * answered within that time). The config's `server.tasks.tools` wins over it.
   */
  task?: TaskMode;
  /**
   * Returns a string (one text block), a full ToolResult, or — for tools with an
   * outputSchema — the structured value itself. Throw ToolError for a failure
   * the model should read.
   */
  handler(args: Args, ctx: ToolContext): unknown;
}

/**
 * Only adds types: a tool is a plain object. The handler's arguments take their
 * type from `inputSchema` (a `const` type parameter reads an inline JSON Schema
 * as the literal it is, no `as const` needed).
 */
export function defineTool<const S extends JsonSchema | StandardSchemaV1>(tool: Tool<S>): Tool<S> {
  return tool;
}

export { ToolError } from '../protocol/tool-error.js';
