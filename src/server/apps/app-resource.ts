import { ResourceDefinitionError } from '../primitives/resources/compile.js';
import type { Resource, ResourceContext } from '../primitives/resources/resource.js';
import { MCP_APP_MIME_TYPE } from './constants.js';
import { isAllowedAppOrigin } from './csp-origin.js';

/** Origins an app's document may use; each becomes part of the host's CSP (plain https origins). */
export interface AppCsp {
  /** fetch/XHR/WebSocket targets (`connect-src`). */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts, media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  resourceDomains?: string[];
  /** Nested frames (`frame-src`). */
  frameDomains?: string[];
  /** Allowed `<base href>` (`base-uri`). */
  baseUriDomains?: string[];
}

/** Browser features an app asks for; a host may grant them (the iframe's `allow`), or not. */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** The `_meta.ui` of an app resource and of its `resources/read` content. */
export interface AppResourceUiMeta {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin; its format is host-specific. */
  domain?: string;
  /** true: the host draws a border and background; false: it does not; unset: the host decides. */
  prefersBorder?: boolean;
}

/** An MCP App: an HTML document at a `ui://` URI, shown by hosts for the tools that name it. */
export interface AppResourceDefinition extends Omit<Resource, 'uri' | 'mimeType' | 'read' | 'size'>, AppResourceUiMeta {
  /** `ui://…`, unique within the server. */
  uri: string;
  /** The document itself, or a function that produces it on each read. */
  html: string | ((ctx: ResourceContext) => string | Promise<string>);
}

/** An app resource as `defineAppResource` returns it: a plain Resource, marked with the app MIME type. */
export interface AppResource extends Resource {
  mimeType: typeof MCP_APP_MIME_TYPE;
}

const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

/** Whether `uri` is a `ui://` URI with something after the scheme (no whitespace). */
export function isUiUri(uri: unknown): uri is string {
  return typeof uri === 'string' && /^ui:\/\/[^\s]+$/.test(uri) && URL.canParse(uri);
}

/**
 * Declares an MCP App resource (SEP-1865): `mimeType` is `text/html;profile=mcp-app`,
 * and `csp`, `permissions`, `domain` and `prefersBorder` go into `_meta.ui` both of
 * the listed resource and of what `resources/read` returns. Throws
 * ResourceDefinitionError for a URI that is not `ui://` or a malformed `csp`.
 */
export function defineAppResource(definition: AppResourceDefinition): AppResource {
  const { uri, html, csp, permissions, domain, prefersBorder, _meta, ...rest } = definition;
  if (!isUiUri(uri)) throw new ResourceDefinitionError(uri, 'an MCP App resource needs a ui:// URI (for example "ui://my-server/view")');
  if (typeof html !== 'string' && typeof html !== 'function') throw new ResourceDefinitionError(uri, '`html` must be a string or a function returning one');
  const ui: AppResourceUiMeta = {};
  if (csp !== undefined) ui.csp = checkedCsp(uri, csp);
  if (permissions !== undefined) ui.permissions = checkedPermissions(uri, permissions);
  if (domain !== undefined) {
    if (typeof domain !== 'string' || domain === '') throw new ResourceDefinitionError(uri, '`domain` must be a non-empty string');
    ui.domain = domain;
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== 'boolean') throw new ResourceDefinitionError(uri, '`prefersBorder` must be true or false');
    ui.prefersBorder = prefersBorder;
  }
  const meta = { ..._meta, ui: { ...(isRecord(_meta?.ui) ? _meta.ui : {}), ...ui } };
  return {
    ...rest,
    uri,
    mimeType: MCP_APP_MIME_TYPE,
    _meta: meta,
    async read(ctx) {
      const text = typeof html === 'string' ? html : await html(ctx);
      if (typeof text !== 'string') throw new Error(`MCP App ${uri}: html() did not return a string`);
      return { uri, mimeType: MCP_APP_MIME_TYPE, text, _meta: { ui: meta.ui } };
    },
  };
}

function checkedCsp(uri: string, csp: AppCsp): AppCsp {
  if (!isRecord(csp)) throw new ResourceDefinitionError(uri, '`csp` must be an object of origin lists');
  const out: AppCsp = {};
  for (const key of Object.keys(csp)) {
    if (!(CSP_FIELDS as readonly string[]).includes(key))
      throw new ResourceDefinitionError(uri, `unknown csp field "${key}" (known: ${CSP_FIELDS.join(', ')})`);
  }
  for (const field of CSP_FIELDS) {
    const list = csp[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new ResourceDefinitionError(uri, `csp.${field} must be an array of origins`);
    for (const origin of list) {
      // The same rule hosts apply (toolwright's console drops anything else): say so at definition time.
      if (!isAllowedAppOrigin(origin, field === 'connectDomains')) {
        const what = field === 'connectDomains' ? 'an https or wss origin' : 'an https origin';
        throw new ResourceDefinitionError(uri, `csp.${field}: ${JSON.stringify(origin)} is not ${what} ("https://host", "https://*.host", optional port)`);
      }
    }
    out[field] = [...list];
  }
  return out;
}

function checkedPermissions(uri: string, permissions: AppPermissions): AppPermissions {
  if (!isRecord(permissions)) throw new ResourceDefinitionError(uri, '`permissions` must be an object');
  const out: AppPermissions = {};
  for (const key of Object.keys(permissions)) {
    if (!(PERMISSIONS as readonly string[]).includes(key))
      throw new ResourceDefinitionError(uri, `unknown permission "${key}" (known: ${PERMISSIONS.join(', ')})`);
    out[key as (typeof PERMISSIONS)[number]] = {};
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
