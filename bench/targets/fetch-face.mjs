// The toolwright server of toolwright-server.mjs behind the endpoint's web-standard face
// (createHttpHandler(...).fetch), for the targets that serve it: on Node (toolwright-fetch.mjs,
// through Hono's Node adapter), on Deno (toolwright-deno.mjs, Deno.serve) and on Bun
// (toolwright-bun.mjs, Bun.serve). Same tools, limits and checks as the Node adapter's target.
import { JsonlTrailSink } from '../../dist/index.js';
import { createHttpHandler } from '../../dist/http.js';
import { buildToolwrightServer } from './toolwright-server.mjs';

/**
 * The handler, loopback-only as serveHttp's defaults are. `audit: 'jsonl'` keeps the trail as JSON
 * lines (what Deno and Bun servers keep: the SQLite driver is a Node add-on) in the harness's
 * fresh $TOOLWRIGHT_AUDIT_DIR; otherwise the default trail, as the Node adapter's target has.
 */
export function buildFetchHandler(toolCount, { audit } = {}) {
  const extra = audit === 'jsonl' ? { audit: new JsonlTrailSink(`${process.env.TOOLWRIGHT_AUDIT_DIR}/audit.jsonl`) } : {};
  const server = buildToolwrightServer(toolCount, extra);
  return createHttpHandler(server, { allowedHosts: ['127.0.0.1', 'localhost'] });
}
