import type { ContentBlock } from '../../../protocol/content.js';
import type { StandardSchemaV1 } from '../../../schema/standard.js';
import type { Icon, JsonSchema } from '../../tool.js';
import type { RequestContext } from '../request-context.js';
import type { Completer } from '../resources/resource.js';

/** One argument a prompt takes (prompts.mdx "PromptArgument"): a string the user fills in. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A message of a prompt; `content` may be a plain string (a text block). */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock | string;
}

/** What `get` returns: a string (one user message), messages, or messages with a description. */
export type PromptReturn = string | PromptMessage[] | { description?: string; messages: PromptMessage[] };

/**
 * A prompt template (prompts.mdx), user-controlled: clients list it and get
 * its messages with the user's arguments. A plain object; `definePrompt`
 * only adds types. Arguments are declared as a list (`arguments`) or as an
 * object schema (`argumentsSchema`, JSON Schema or Standard Schema, whose
 * properties are the arguments); either way they are checked before `get`
 * runs, and a missing required or unknown argument is -32602.
 */
export interface Prompt<A = Record<string, string>> {
  /** 1–128 characters of [A-Za-z0-9_.-], unique within the server. */
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  arguments?: PromptArgument[];
  argumentsSchema?: JsonSchema | StandardSchemaV1;
  /** Suggestions for an argument's value (`completion/complete`). */
  complete?: Record<string, Completer>;
  /** The gateway upstream it is relayed to (set by `mount`): its audit records name it (`upstream`), its spans carry it (`toolwright.upstream`). */
  upstream?: string;
  /** How long `get` may run (server default: the tool timeout). */
  timeoutMs?: number;
  /**
   * Scopes a caller's token must grant to get it (as a tool's `scopes`):
   * without them `prompts/get` is HTTP 403 `insufficient_scope` naming them,
   * and `prompts/list` leaves it out. The config's `server.auth.promptScopes` wins over this.
   */
  scopes?: string[];
  /** Scopes a caller must hold to know it exists: without them it is absent from the list and getting it is the unknown-prompt error. */
  visibilityScopes?: string[];
  get(args: A, ctx: PromptContext): PromptReturn | Promise<PromptReturn>;
}

/** What `get` knows about its request, and what it may ask the client (input required). */
export type PromptContext = RequestContext;

/** Only adds types: a prompt is a plain object. */
export function definePrompt<A = Record<string, string>>(prompt: Prompt<A>): Prompt<A> {
  return prompt;
}
