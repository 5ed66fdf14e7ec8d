/**
 * The Content-Security-Policy the console's server sends with an MCP App's
 * document (MCP Apps, SEP-1865). DOM-free: the server imports it.
 *
 * The base policy lets the app run its own inline script and style and
 * nothing else: no network, no frames, no forms, no <base>. A resource's
 * `_meta.ui.csp` may widen it, but only with plain https origins
 * (`https://host`, `https://*.host`, an optional port; `wss://` too in
 * `connectDomains`): every other entry
 * (quotes, `;`, spaces, `*`, schemes such as `data:` or `http:`, paths) is
 * refused and reported, so a server cannot smuggle a directive or a keyword
 * into the header. The `sandbox allow-scripts` directive repeats the
 * iframe's sandbox, so the document stays opaque-origin even if opened
 * outside the frame.
 */
import { isAllowedAppOrigin } from '../server/apps/csp-origin.js';

export { isAllowedAppOrigin };

export interface AppCsp {
  /** The header value. */
  policy: string;
  /** Entries that were not plain https origins, left out (for a console warning). */
  refused: string[];
}

/** At most this many origins per field are used; the rest are refused. */
export const MAX_APP_CSP_DOMAINS = 32;
function origins(value: unknown, refused: string[], allowWebSocket = false): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    refused.push(String(JSON.stringify(value)).slice(0, 100));
    return [];
  }
  const kept: string[] = [];
  for (const entry of value) {
    if (isAllowedAppOrigin(entry, allowWebSocket) && kept.length < MAX_APP_CSP_DOMAINS) {
      const lower = entry.toLowerCase();
      if (!kept.includes(lower)) kept.push(lower);
    } else refused.push(typeof entry === 'string' ? entry.slice(0, 100) : String(JSON.stringify(entry)).slice(0, 100));
  }
  return kept;
}

/**
 * The policy for an app whose resource declared `csp` (its `_meta.ui.csp`,
 * untrusted: anything may be in it).
 */
export function buildAppCsp(csp?: unknown): AppCsp {
  const refused: string[] = [];
  const declared = csp !== null && typeof csp === 'object' && !Array.isArray(csp) ? (csp as Record<string, unknown>) : {};
  if (csp !== undefined && csp !== declared) refused.push(String(JSON.stringify(csp)).slice(0, 100));
  const connect = origins(declared.connectDomains, refused, true);
  const resource = origins(declared.resourceDomains, refused);
  const frame = origins(declared.frameDomains, refused);
  const baseUri = origins(declared.baseUriDomains, refused);
  const list = (first: string[], extra: string[]) => [...first, ...extra].join(' ');
  const directives = [
    "default-src 'none'",
    `script-src ${list(["'unsafe-inline'"], resource)}`,
    `style-src ${list(["'unsafe-inline'"], resource)}`,
    `img-src ${list(['data:'], resource)}`,
    `media-src ${list(['data:'], resource)}`,
    `font-src ${list(['data:'], resource)}`,
    `connect-src ${connect.length > 0 ? connect.join(' ') : "'none'"}`,
    `frame-src ${frame.length > 0 ? frame.join(' ') : "'none'"}`,
    "object-src 'none'",
    "form-action 'none'",
    `base-uri ${baseUri.length > 0 ? baseUri.join(' ') : "'none'"}`,
    'sandbox allow-scripts',
  ];
  return { policy: directives.join('; '), refused };
}

/** The iframe's `sandbox` attribute: scripts only, never `allow-same-origin`. */
export const APP_FRAME_SANDBOX = 'allow-scripts';
