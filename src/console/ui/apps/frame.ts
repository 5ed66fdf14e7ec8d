/**
 * How the console frames an MCP App. The document comes from the console
 * server's own route, sent with the CSP `buildAppCsp()` makes
 * (src/console/apps-csp.ts); a srcdoc or blob: frame would inherit the
 * console page's CSP instead.
 */

/** Scripts only. Never `allow-same-origin`: the app must stay an opaque origin, away from the console's storage and API. */
export const APP_FRAME_SANDBOX = 'allow-scripts';

/** No powerful features unless the user granted them; `permissions` from the resource are not honoured yet. */
export const APP_FRAME_ALLOW = '';

/** Attributes for the app's iframe: set them all before `src`. */
export function appFrameAttributes(src: string, title: string): Record<string, string> {
  return {
    src,
    title,
    sandbox: APP_FRAME_SANDBOX,
    allow: APP_FRAME_ALLOW,
    referrerpolicy: 'no-referrer',
    credentialless: '',
    loading: 'eager',
  };
}

/** Creates the iframe with those attributes (the bridge must be constructed before it loads). */
export function createAppFrame(doc: Document, src: string, title: string): HTMLIFrameElement {
  const frame = doc.createElement('iframe');
  const { src: source, ...rest } = appFrameAttributes(src, title);
  for (const [name, value] of Object.entries(rest)) frame.setAttribute(name, value);
  frame.setAttribute('src', source);
  return frame;
}
