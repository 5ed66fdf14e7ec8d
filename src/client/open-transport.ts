import { HttpClientTransport } from './transports/http-client.js';
import { OAuthClient } from './auth/oauth-client.js';
import type { OAuthOptions } from './auth/types.js';
import { canonicalResource } from './auth/urls.js';
import type { ClientTransport } from './transport.js';
import type { ClientTarget, StdioTarget } from './types.js';
import { tapTransport, type WireListener } from './wire-tap.js';

interface OpenOptions {
  maxMessageBytes?: number;
  closeGraceMs?: number;
  onWarning: (message: string) => void;
  authorization?: OAuthClient | OAuthOptions;
  /** Told of every JSON-RPC message both ways (wire-tap.ts). */
  onWireMessage?: WireListener;
}

/** Starts a stdio server: installed by the Node entry (client/node.ts); the runtime-neutral core has none. */
type StdioStarter = (target: StdioTarget, options: OpenOptions) => Promise<ClientTransport>;
let startStdio: StdioStarter | undefined;

/** Lets `{ command }` targets start a local process (Node only; see client/node.ts). */
export function installStdioStarter(starter: StdioStarter): void {
  startStdio = starter;
}

/** Builds the transport a target describes (a URL means HTTP, a command means stdio), tapped when `onWireMessage` is given. */
export async function openTransport(target: ClientTarget, options: OpenOptions): Promise<ClientTransport> {
  const transport = await buildTransport(target, options);
  return options.onWireMessage ? tapTransport(transport, options.onWireMessage) : transport;
}

async function buildTransport(target: ClientTarget, options: OpenOptions): Promise<ClientTransport> {
  if ('transport' in target) return target.transport;
  if ('url' in target) {
    if (!options.authorization) return new HttpClientTransport(target, options);
    const oauth = authorizationFor(target.url, options.authorization, target.fetch, options.onWarning);
    return new HttpClientTransport({ ...target, fetch: oauth.fetch }, options);
  }
  if ('command' in target && typeof target.command === 'string') {
    if (!startStdio) {
      throw new TypeError(
        "a { command } target starts a local process, which needs Node: import ToolClient from 'toolwright/client' there (this is the runtime-neutral core, for { url } and { transport } targets)",
      );
    }
    return startStdio(target, options);
  }
  throw new TypeError('a target is { url } for HTTP, { command, args } for stdio, or { transport }');
}

/** The OAuthClient that authorizes the requests to `url`: the one given (for that very server), or one built from options. */
function authorizationFor(
  url: string | URL,
  given: OAuthClient | OAuthOptions,
  baseFetch: typeof fetch | undefined,
  warn: (message: string) => void,
): OAuthClient {
  if (given instanceof OAuthClient) {
    if (given.server !== canonicalResource(new URL(String(url)))) throw new TypeError(`the OAuthClient is for ${given.server}, not for ${String(url)}`);
    return given;
  }
  return new OAuthClient(url, { onWarning: warn, ...given, fetch: given.fetch ?? baseFetch });
}
