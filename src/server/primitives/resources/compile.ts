import type { ScopedEntry } from '../../../policy/auth/scope-policy.js';
import { contentBlockProblem, isPlainObject, MIME } from '../../../protocol/content.js';
import { iconsAndMetaProblem, scopeFieldsProblem, timeoutProblem, titleAndDescriptionProblem } from '../../definition-fields.js';
import { compileArgsSchema, type ArgsSchema } from '../args-schema.js';
import type { Resource, ResourceTemplate } from './resource.js';
import { UriTemplate } from './uri-template.js';

/** URIs the server mints for stored large results; no resource may claim them. */
export const RESULT_URI_PREFIX = 'toolwright://results/';

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;
const MAX_URI_CHARS = 8192;

export class ResourceDefinitionError extends Error {
  constructor(what: unknown, why: string) {
    super(`Invalid resource ${typeof what === 'string' && what ? JSON.stringify(what) : '(unnamed)'}: ${why}`);
    this.name = 'ResourceDefinitionError';
  }
}

/** A resource ready to serve: checked, and its `resources/list` entry serialized once. */
export interface CompiledResource {
  readonly resource: Resource;
  readonly uri: string;
  readonly wireJson: string;
  /** What the scope policy keys it by (its URI) and what it says of its own scopes. */
  readonly scope: ScopedEntry;
}

/** A template ready to serve: parsed once, its variables' schema compiled once. */
export interface CompiledTemplate {
  readonly template: ResourceTemplate<unknown>;
  readonly uriTemplate: UriTemplate;
  readonly wireJson: string;
  readonly variables?: ArgsSchema;
  /** What the scope policy keys it by (its uriTemplate as registered) and what it says of its own scopes. */
  readonly scope: ScopedEntry;
}

export function compileResource(resource: Resource): CompiledResource {
  const uri = resource?.uri;
  if (typeof uri !== 'string' || !URI.test(uri) || uri.length > MAX_URI_CHARS)
    throw new ResourceDefinitionError(uri, 'a resource needs an absolute "uri" (scheme:rest, RFC 3986, no spaces)');
  if (uri.startsWith(RESULT_URI_PREFIX)) throw new ResourceDefinitionError(uri, `URIs under ${RESULT_URI_PREFIX} are the server's stored results`);
  if (typeof resource.read !== 'function') throw new ResourceDefinitionError(uri, 'a read function is required');
  if (resource.size !== undefined && !(Number.isInteger(resource.size) && resource.size >= 0))
    throw new ResourceDefinitionError(uri, '"size" must be a non-negative integer (bytes)');
  checkMetadata(uri, resource);
  const wire: Record<string, unknown> = { uri, name: resource.name };
  copyMetadata(wire, resource);
  if (resource.size !== undefined) wire.size = resource.size;
  return { resource, uri, wireJson: JSON.stringify(wire), scope: { key: uri, own: resource } };
}

export function compileTemplate(template: ResourceTemplate<unknown>): CompiledTemplate {
  const text = template?.uriTemplate;
  let uriTemplate: UriTemplate;
  try {
    uriTemplate = new UriTemplate(text);
  } catch (err) {
    throw new ResourceDefinitionError(text, (err as Error).message);
  }
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) throw new ResourceDefinitionError(text, 'a URI template must start with a scheme (scheme:…)');
  if (text.startsWith(RESULT_URI_PREFIX)) throw new ResourceDefinitionError(text, `URIs under ${RESULT_URI_PREFIX} are the server's stored results`);
  if (typeof template.read !== 'function') throw new ResourceDefinitionError(text, 'a read function is required');
  checkMetadata(text, template);
  if (template.complete !== undefined) {
    if (!isPlainObject(template.complete)) throw new ResourceDefinitionError(text, '"complete" must map variable names to functions');
    for (const [name, fn] of Object.entries(template.complete)) {
      if (!uriTemplate.variables.includes(name))
        throw new ResourceDefinitionError(text, `"complete" names ${JSON.stringify(name)}, which is not a variable of the template`);
      if (typeof fn !== 'function') throw new ResourceDefinitionError(text, `complete.${name} must be a function`);
    }
  }
  let variables: ArgsSchema | undefined;
  if (template.variables !== undefined) {
    try {
      variables = compileArgsSchema(template.variables, 'variables');
    } catch (err) {
      throw new ResourceDefinitionError(text, `variables: ${(err as Error).message}`);
    }
  }
  const wire: Record<string, unknown> = { uriTemplate: text, name: template.name };
  copyMetadata(wire, template);
  return { template, uriTemplate, wireJson: JSON.stringify(wire), variables, scope: { key: text, own: template } };
}

function checkMetadata(what: string, r: Resource | ResourceTemplate<unknown>): void {
  if (typeof r.name !== 'string' || r.name === '') throw new ResourceDefinitionError(what, 'a "name" string is required');
  const textProblem = titleAndDescriptionProblem(r);
  if (textProblem) throw new ResourceDefinitionError(what, textProblem);
  if (r.mimeType !== undefined && (typeof r.mimeType !== 'string' || !MIME.test(r.mimeType)))
    throw new ResourceDefinitionError(what, '"mimeType" is not a MIME type (type/subtype)');
  if (r.annotations !== undefined) {
    // The same rules as a content block's annotations (audience, priority 0..1, lastModified).
    const problem = contentBlockProblem({ type: 'text', text: '', annotations: r.annotations });
    if (problem) throw new ResourceDefinitionError(what, problem);
  }
  const iconsProblem = iconsAndMetaProblem(r);
  if (iconsProblem) throw new ResourceDefinitionError(what, iconsProblem);
  if (r.ttlMs !== undefined && !(Number.isInteger(r.ttlMs) && r.ttlMs >= 0)) throw new ResourceDefinitionError(what, '"ttlMs" must be a non-negative integer');
  if (r.cacheScope !== undefined && r.cacheScope !== 'public' && r.cacheScope !== 'private')
    throw new ResourceDefinitionError(what, '"cacheScope" must be "public" or "private"');
  const callProblem = timeoutProblem(r.timeoutMs) ?? scopeFieldsProblem(r);
  if (callProblem) throw new ResourceDefinitionError(what, callProblem);
}

function copyMetadata(wire: Record<string, unknown>, r: Resource | ResourceTemplate<unknown>): void {
  if (r.title !== undefined) wire.title = r.title;
  if (r.description !== undefined) wire.description = r.description;
  if (r.mimeType !== undefined) wire.mimeType = r.mimeType;
  if (r.annotations !== undefined) wire.annotations = r.annotations;
  if (r.icons !== undefined) wire.icons = r.icons;
  if (r._meta !== undefined) wire._meta = r._meta;
}
