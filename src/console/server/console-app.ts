import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext, ApiRoutes, ConsoleOperator, ExtraRoutes } from './api-routes.js';
import { STREAMED } from './api-routes.js';
import { consoleAssets } from './assets.js';
import { CallRegistry } from './calls.js';
import { collectionRoutes } from './collection-routes.js';
import { coreRoutes } from './core-routes.js';
import { AppFrames } from './app-routes.js';
import { devRoutes } from './dev-routes.js';
import { doctorRoutes } from './doctor-routes.js';
import { primitiveRoutes } from './primitive-routes.js';
import { upstreamRoutes } from './upstream-routes.js';
import { debuggerRoutes } from './debugger-routes.js';
import { validateRoutes } from './validate-routes.js';
import { loginRoutes } from './login-routes.js';
import { operatorRoutes } from './operator-routes.js';
import { apiProblem, PAGE_CSP, pageProblem, securityHeaders, type ConsoleGuard } from './guard.js';
import { ApiError, readJsonObject, sendApiError, sendJson } from './http-io.js';
import { ConsoleSession, type ConsoleTarget } from './session.js';

interface ConsoleAppOptions {
  /** toolwright's version, as the console's client introduces itself. */
  version: string;
  guard: ConsoleGuard;
  /** Where the console lives on its listener: '' (the root) or e.g. '/console'. */
  prefix?: string;
  /** What to connect to when the page first asks (the command line's target). */
  target?: ConsoleTarget;
  operator?: ConsoleOperator;
  /** Feature routes beside the console's own. */
  routes?: ExtraRoutes;
  /** Where an API handler's unexpected failure is logged (never sent to the page). */
  onError?: (err: unknown) => void;
}

export interface ConsoleApp {
  /** Serves a request under the prefix; false when the path is not the console's. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  readonly session: ConsoleSession;
  close(): Promise<void>;
}

/**
 * The console: its page (prebuilt, dist/console/) and its API under `api/`, which reaches
 * servers only through toolwright's client (ConsoleSession). Mounted by `toolwright console`
 * on its own loopback listener, and by `toolwright serve --console` beside the MCP endpoint.
 */
export function createConsoleApp(options: ConsoleAppOptions): ConsoleApp {
  const prefix = options.prefix ?? '';
  const session = new ConsoleSession({ version: options.version, ...(options.target ? { defaultTarget: options.target } : {}) });
  const calls = new CallRegistry(session);
  const apps = new AppFrames();
  const routes: ExtraRoutes = { ...consoleRoutes(apps), ...options.routes };
  const assets = consoleAssets();
  const onError = options.onError ?? (() => {});

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return false;
    const path = url.pathname.slice(prefix.length);
    securityHeaders(res);
    if (path === '') {
      res.writeHead(308, { Location: `${prefix}/` }).end();
      return true;
    }
    if (path.startsWith('/api/')) {
      await serveApi(path.slice('/api/'.length), url.searchParams, req, res);
      return true;
    }
    const problem = pageProblem(req, options.guard);
    if (problem) return refuse(res, 403, problem);
    if (apps.serve(path, req, res)) return true;
    const asset = assets.get(path === '/' ? 'index.html' : path.slice(1));
    if (!asset) return refuse(res, 404, 'no such page in the console');
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'the console page takes GET');
    res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.body.length, 'Content-Security-Policy': PAGE_CSP });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
    return true;
  }

  async function serveApi(name: string, query: URLSearchParams, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const problem = apiProblem(req, options.guard);
    if (problem) {
      refuse(res, 403, problem);
      return;
    }
    const route = routes[`${req.method} ${name}`];
    if (!route) {
      const exists = Object.keys(routes).some((key) => key.endsWith(` ${name}`));
      refuse(res, exists ? 405 : 404, exists ? `${req.method} is not accepted here` : `no such console API: ${name.slice(0, 100)}`);
      return;
    }
    let body: Promise<Record<string, unknown>> | undefined;
    const ctx: ApiContext = {
      req,
      res,
      query,
      body: () => (body ??= readJsonObject(req)),
      session,
      calls,
      ...(options.operator ? { operator: options.operator } : {}),
    };
    await answer(route, ctx, onError);
  }

  return {
    handle,
    session,
    close: () => session.close(),
  };
}

/** Every route of the console's API. */
function consoleRoutes(apps: AppFrames): Required<ApiRoutes> {
  // Every route ConsoleApi declares is served (Required: one missing is a type error).
  return {
    ...coreRoutes,
    ...loginRoutes,
    ...doctorRoutes,
    ...collectionRoutes,
    ...apps.routes(),
    ...operatorRoutes,
    ...validateRoutes,
    ...primitiveRoutes,
    ...devRoutes,
    ...upstreamRoutes,
    ...debuggerRoutes,
  };
}

/** Runs a route: its JSON answer with 200 (a stream route wrote its own), a refusal as its ApiError, anything else 500 and logged. */
async function answer(route: ExtraRoutes[string], ctx: ApiContext, onError: (err: unknown) => void): Promise<void> {
  const { res } = ctx;
  try {
    const answer = await route(ctx);
    if (answer !== STREAMED) sendJson(res, 200, answer ?? {});
  } catch (err) {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof ApiError) sendApiError(res, err);
    else {
      onError(err);
      sendApiError(res, new ApiError(500, err instanceof Error ? err.message : 'the console failed to answer'));
    }
  }
}

function refuse(res: ServerResponse, status: number, message: string): true {
  sendJson(res, status, { error: { message } });
  return true;
}
