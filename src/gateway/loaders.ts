import { resolve } from 'node:path';
import { FileTokenStore } from '../client/auth/file-token-store.js';
import { OAuthClient } from '../client/auth/oauth-client.js';
import { HttpClientTransport } from '../client/transports/http-client.js';
import type { HttpSend } from '../client/transports/http-send.js';
import { StdioClientTransport } from '../client/transports/stdio-client.js';
import type { ClientTransport } from '../client/transport.js';
import type { Tool } from '../server/tool.js';
import { InProcessTransport } from './memory-transport.js';
import { openApiTools } from './openapi/index.js';
import type { OpenApiUpstream } from './openapi/types.js';
import type { HttpUpstream, InProcessUpstream, StdioUpstream, Upstream } from './types.js';

export type UpstreamKind = 'stdio' | 'http' | 'server' | 'openapi';

/** What opening a live upstream gives: a transport for toolwright's client, and how to tell it died. */
export interface OpenedTransport {
  transport: ClientTransport;
  /** Settles when the upstream went away on its own (a stdio process exited): the gateway restarts it. */
  ended?: Promise<void>;
}

/** What the loaders are told besides the upstream. */
export interface LoaderContext {
  /** Relative paths (a stdio `cwd`, an OpenAPI file) are resolved from here. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  maxMessageBytes: number;
  /** Wraps fetch for HTTP upstreams (the per-call Authorization when an upstream forwards it). */
  fetch?: typeof fetch;
  /** @internal How HTTP upstreams are spoken to, when they need no fetch (OAuth sign-in wraps fetch): the gateway's node:http sender. */
  send?: HttpSend;
}

/**
 * How each kind of upstream is reached. A `client` loader opens a connection that toolwright's
 * client speaks MCP over (tools, prompts and resources are listed and kept in step); a `tools`
 * loader gives a fixed list of tools (an OpenAPI document's operations, src/gateway/openapi).
 */
export type UpstreamLoader =
  | { kind: 'client'; open(upstream: Upstream, context: LoaderContext): Promise<OpenedTransport> }
  | { kind: 'tools'; load(upstream: Upstream, context: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ tools: Tool[]; notes: string[] }> };

export const UPSTREAM_LOADERS: Partial<Record<UpstreamKind, UpstreamLoader>> = {
  stdio: { kind: 'client', open: (u, c) => openStdio(u as StdioUpstream, c) },
  http: { kind: 'client', open: async (u, c) => ({ transport: openHttp(u as HttpUpstream, c) }) },
  server: { kind: 'client', open: async (u, c) => ({ transport: new InProcessTransport((u as InProcessUpstream).server, c.warn) }) },
  openapi: { kind: 'tools', load: (u, c) => openApiTools(u as OpenApiUpstream, c) },
};

/** Which kind an upstream is, from the key that names it. */
export function upstreamKind(upstream: Upstream): UpstreamKind {
  if (typeof upstream !== 'object' || upstream === null) throw new TypeError('an upstream is an object: { command }, { url }, { openapi } or { server }');
  if ('server' in upstream && upstream.server) return 'server';
  if ('openapi' in upstream && upstream.openapi !== undefined) return 'openapi';
  if ('url' in upstream && upstream.url !== undefined) return 'http';
  if ('command' in upstream && upstream.command !== undefined) return 'stdio';
  throw new TypeError('an upstream is { command, args, env, cwd } (stdio), { url, headers } (HTTP), { openapi, … } or { server } (a ToolServer)');
}

async function openStdio(upstream: StdioUpstream, context: LoaderContext): Promise<OpenedTransport> {
  const transport = await StdioClientTransport.start(
    {
      command: upstream.command,
      args: upstream.args,
      env: upstream.env,
      cwd: upstream.cwd === undefined ? context.cwd : resolve(context.cwd, upstream.cwd),
      // Its own group: shutdown (and this process's exit) signals the whole group, so what a
      // launcher (npx, a shell) started goes too.
      ownProcessGroup: true,
      stderr: 'capture',
    },
    { maxMessageBytes: context.maxMessageBytes, onWarning: context.warn, closeGraceMs: 1_000 },
  );
  return { transport, ended: transport.whenExited };
}

function openHttp(upstream: HttpUpstream, context: LoaderContext): ClientTransport {
  const options = { maxMessageBytes: context.maxMessageBytes, onWarning: context.warn };
  if (upstream.auth === 'login') {
    // The store `toolwright login` writes; the client refreshes the tokens in it as they expire.
    const fetcher = new OAuthClient(upstream.url, { store: new FileTokenStore(), onWarning: context.warn, ...(context.fetch ? { fetch: context.fetch } : {}) })
      .fetch;
    return new HttpClientTransport({ url: upstream.url, headers: upstream.headers, fetch: fetcher }, options);
  }
  const target = { url: upstream.url, headers: upstream.headers, ...(context.fetch ? { fetch: context.fetch } : {}) };
  return new HttpClientTransport(target, context.send ? { ...options, send: context.send } : options);
}

/** Why an HTTP upstream's `auth` cannot be used as given, if it cannot. */
export function httpAuthProblem(upstream: HttpUpstream, forwardAuthorization: boolean): string | undefined {
  if (upstream.auth === undefined) return undefined;
  if (upstream.auth !== 'login') return `auth must be "login" (the tokens toolwright login stores), got ${JSON.stringify(upstream.auth).slice(0, 40)}`;
  if (forwardAuthorization) return 'auth: login and forwardAuthorization both say whose token to send: choose one';
  if (Object.keys(upstream.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    return 'auth: login and an Authorization header both give a token: choose one';
  return undefined;
}
