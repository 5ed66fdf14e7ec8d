/**
 * The one rule for an origin in an app's `_meta.ui.csp`, shared by defineAppResource (refused at
 * definition) and the console's CSP builder (dropped when served): a plain https origin, or wss
 * where WebSockets make sense (connect-src).
 */
const MAX_ORIGIN_LENGTH = 300;

// https, an optional leading `*.` label, DNS labels, an optional port. Nothing else
// (no path, no query, no user info, no whitespace, no quote, no `;` or `,`).
const ORIGIN_HOST = String.raw`(\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::[0-9]{1,5})?$`;
const HTTPS_ORIGIN = new RegExp(`^https://${ORIGIN_HOST}`, 'i');
// connect-src alone may also name secure WebSocket origins (the spec's example: "wss://realtime.service.com").
const WSS_ORIGIN = new RegExp(`^wss://${ORIGIN_HOST}`, 'i');

/** Whether `entry` is an origin the console accepts into an app's CSP. */
export function isAllowedAppOrigin(entry: unknown, allowWebSocket = false): entry is string {
  if (typeof entry !== 'string' || entry.length > MAX_ORIGIN_LENGTH) return false;
  if (!HTTPS_ORIGIN.test(entry) && !(allowWebSocket && WSS_ORIGIN.test(entry))) return false;
  const port = /:([0-9]+)$/.exec(entry);
  return port === null || Number(port[1]) <= 65535;
}
