import type { Annotations } from '../../../protocol/content.js';
import type { JsonSchema, Icon } from '../../tool.js';
import type { StandardSchemaV1 } from '../../../schema/standard.js';
import type { RequestContext } from '../request-context.js';
import type { TemplateVariables } from './uri-template.js';

/**
 * What a read returns: a string (text, of the resource's mimeType or
 * text/plain), bytes (sent base64 as a blob), one content object, or several
 * (a directory read may return its files). A content object without `uri`
 * gets the one that was read. Undefined: the resource does not exist
 * (-32602 "Resource not found").
 */
export type ReadReturn = string | Uint8Array | ResourceContent | ResourceContent[] | undefined;

export type ResourceContent =
  | { uri?: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri?: string; mimeType?: string; blob: string | Uint8Array; _meta?: Record<string, unknown> };

interface ResourceMetadata {
  /** Shown to people and models; for a template, the name of the family of resources. */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** How long a client may keep what it read (modern `ttlMs`; default: the server's list TTL). */
  ttlMs?: number;
  /**
   * `public` (default): the same for every caller, so any cache may share it.
   * `private`: it depends on who reads it (caching.mdx).
   */
  cacheScope?: 'public' | 'private';
  /** The gateway upstream it is read through to (set by `mount`): its audit records name it (`upstream`), its spans carry it (`toolwright.upstream`). */
  upstream?: string;
  /** How long a read may run (server default: the tool timeout). */
  timeoutMs?: number;
  /**
   * Scopes a caller's token must grant to read it (all of them; a broader
   * scope implying one counts), checked for callers whose credentials carry
   * scopes. Without them a read is HTTP 403 `insufficient_scope` naming them,
   * and the list leaves it out. The config's `server.auth.resourceScopes` wins over this.
   */
  scopes?: string[];
  /**
   * Scopes a caller must hold to know it exists: without them it is absent
   * from the list and reading it is the same "Resource not found" as for a
   * URI nothing serves (and completing a template's variables, an unknown template).
   */
  visibilityScopes?: string[];
}

/** A resource at a fixed URI (resources.mdx). A plain object: `defineResource` only adds types. */
export interface Resource extends ResourceMetadata {
  /** An absolute URI (RFC 3986), unique within the server. */
  uri: string;
  /** Size in bytes, if known (clients estimate context use from it). */
  size?: number;
  read(ctx: ResourceContext): ReadReturn | Promise<ReadReturn>;
}

/**
 * A family of resources named by an RFC 6570 URI template
 * (`file:///{+path}`, `db://tables/{table}`). `read` gets the variables the
 * client's URI bound; `variables` (JSON Schema or Standard Schema) checks
 * them first, and its parsed output is what `read` receives.
 */
export interface ResourceTemplate<V = TemplateVariables> extends ResourceMetadata {
  uriTemplate: string;
  /** A schema for the variables (an object of strings, or string arrays for exploded ones). */
  variables?: JsonSchema | StandardSchemaV1;
  /** Suggestions for a variable's value (`completion/complete`); `context` has the variables already chosen. */
  complete?: Record<string, Completer>;
  read(uri: string, variables: V, ctx: ResourceContext): ReadReturn | Promise<ReadReturn>;
}

/** Values for an argument being typed: at most 100 are sent, best first. */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => string[] | Promise<string[]>;

/** What a read knows about its request, and what it may ask the client (input required). */
export type ResourceContext = RequestContext;

/** Only adds types: a resource is a plain object. */
export function defineResource(resource: Resource): Resource {
  return resource;
}

/** Only adds types: a resource template is a plain object. */
export function defineResourceTemplate<V = TemplateVariables>(template: ResourceTemplate<V>): ResourceTemplate<V> {
  return template;
}
