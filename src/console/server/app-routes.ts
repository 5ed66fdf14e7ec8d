import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_APP_MIME_TYPE } from '../../server/apps/constants.js';
import { isCallableByApp } from '../../server/apps/visibility.js';
import { buildAppCsp } from '../apps-csp.js';
import type { ApiRoutes } from './api-routes.js';
import { ApiError, optionalObject, requiredString } from './http-io.js';
import { randomId } from './random-id.js';

/** How long an app's document can be loaded after the page asked for it. */
const FRAME_TTL_MS = 10 * 60_000;
const MAX_FRAMES = 50;
const MAX_APP_HTML_BYTES = 4 * 1024 * 1024;

interface AppFrame {
  html: string;
  policy: string;
  expires: number;
}

/**
 * MCP Apps in the console. The page asks for a tool's `ui://` app (`POST app-frame`); the
 * console reads it through its client and keeps it under an unguessable id; the page's
 * sandboxed iframe (`allow-scripts`, never `allow-same-origin`) loads it from `app-frame/<id>`,
 * served with the app's own CSP (apps-csp.ts): a frame inlined with srcdoc would inherit the
 * page's policy instead. The iframe cannot send the console's token header, so the id is the
 * capability; it grants the app's document and nothing else. The app's `tools/call` comes back
 * through the page's bridge to `POST app-call`, which refuses tools the app may not call.
 */
export class AppFrames {
  private readonly frames = new Map<string, AppFrame>();

  /** The app routes (`POST app-frame`, `POST app-call`), bound to these frames. */
  routes() {
    return {
      'POST app-frame': async ({ body, session }) => {
        const uri = requiredString(await body(), 'uri', 2048);
        if (!uri.startsWith('ui://')) throw new ApiError(400, 'an app is a ui:// resource');
        const read = await session.requireClient().readResource(uri);
        const content = read.contents.find((c) => c.uri === uri && typeof (c as { text?: unknown }).text === 'string') as
          | { text: string; mimeType?: string; _meta?: { ui?: { csp?: unknown } } }
          | undefined;
        if (!content) throw new ApiError(502, `the server sent no HTML for ${uri}`);
        if (content.mimeType?.replace(/\s/g, '').toLowerCase() !== MCP_APP_MIME_TYPE)
          throw new ApiError(502, `${uri} is ${JSON.stringify(content.mimeType ?? 'without a type')}, not an MCP App (${MCP_APP_MIME_TYPE})`);
        if (Buffer.byteLength(content.text) > MAX_APP_HTML_BYTES) throw new ApiError(502, `${uri} is over ${MAX_APP_HTML_BYTES} bytes`);
        const { policy, refused } = buildAppCsp(content._meta?.ui?.csp);
        const id = this.keep({ html: content.text, policy, expires: Date.now() + FRAME_TTL_MS });
        return { src: `app-frame/${id}`, ...(refused.length ? { refusedCsp: refused } : {}) };
      },

      'POST app-call': async ({ body, session }) => {
        const given = await body();
        const name = requiredString(given, 'name', 512);
        const args = optionalObject(given, 'arguments') ?? {};
        const tool = await session.listedTool(name);
        if (!isCallableByApp(tool._meta)) throw new ApiError(403, `${name} is not callable by apps (its _meta.ui.visibility leaves out "app")`);
        return session.requireClient().callTool(name, args);
      },
    } satisfies ApiRoutes;
  }

  /** Serves `app-frame/<id>`; false when the path is not one. */
  serve(path: string, req: IncomingMessage, res: ServerResponse): boolean {
    const match = /^\/app-frame\/([A-Za-z0-9_-]{24})$/.exec(path);
    if (!match) return false;
    const frame = this.frames.get(match[1]);
    if (!frame || frame.expires < Date.now() || req.method !== 'GET') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('no such app frame (they last 10 minutes)');
      return true;
    }
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `${frame.policy}; frame-ancestors 'self'`,
      // Framed by the console's own page only (securityHeaders said DENY for everything else).
      'X-Frame-Options': 'SAMEORIGIN',
    });
    res.end(frame.html);
    return true;
  }

  private keep(frame: AppFrame): string {
    const now = Date.now();
    for (const [id, f] of this.frames) if (f.expires < now) this.frames.delete(id);
    while (this.frames.size >= MAX_FRAMES) this.frames.delete(this.frames.keys().next().value as string);
    const id = randomId();
    this.frames.set(id, frame);
    return id;
  }
}
