import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizationPrompt } from './types.js';

export interface LoopbackOptions {
  /** Port on 127.0.0.1 (default 0: any free one). A fixed port keeps a dynamic registration's redirect URI stable. */
  port?: number;
  /** Path of the redirect URI (default "/callback"). */
  path?: string;
  /** Shows the user the authorization URL (default: opens the browser; the caller should also print it). */
  onPrompt?: (prompt: AuthorizationPrompt) => void;
}

const PAGE = (title: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>You can close this window and return to the terminal.</p>`;

/**
 * The redirect endpoint of a native app (RFC 8252 §7.3): an HTTP listener on
 * the loopback address that receives the browser's return from the
 * authorization server. It takes the first request to its path and nothing
 * else, shows a page that repeats nothing from the request, and closes.
 *
 *   const loopback = await LoopbackRedirect.listen();
 *   const oauth = new OAuthClient(url, { redirectUri: loopback.redirectUri, authorize: loopback.authorize });
 */
export class LoopbackRedirect {
  private waiter?: { resolve(url: URL): void; reject(err: unknown): void };
  private received?: URL;

  private constructor(private readonly server: Server, readonly redirectUri: string, private readonly options: LoopbackOptions) {}

  static async listen(options: LoopbackOptions = {}): Promise<LoopbackRedirect> {
    const path = options.path ?? '/callback';
    let loopback: LoopbackRedirect | undefined;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method !== 'GET' || url.pathname !== path || loopback === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const done = loopback.accept(new URL(`${loopback.redirectUri}${url.search}`));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end(PAGE(done ? 'Authorization received' : 'Nothing to do here'));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    server.unref();
    const port = (server.address() as AddressInfo).port;
    loopback = new LoopbackRedirect(server, `http://127.0.0.1:${port}${path}`, options);
    return loopback;
  }

  /** For OAuthOptions.authorize: shows the URL, waits for the browser to come back. */
  readonly authorize = async (prompt: AuthorizationPrompt): Promise<URL> => {
    (this.options.onPrompt ?? ((p) => void openBrowser(p.url.href)))(prompt);
    return this.waitForRedirect(prompt.signal);
  };

  /** Resolves with the URL the browser came back to (query included). */
  waitForRedirect(signal?: AbortSignal): Promise<URL> {
    if (this.received) return Promise.resolve(this.received);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<URL>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiter = {
        resolve: (url) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(url);
        },
        reject,
      };
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Takes the first return that carries an authorization response; false for anything after it. */
  private accept(url: URL): boolean {
    if (this.received || !(url.searchParams.has('code') || url.searchParams.has('error'))) return false;
    this.received = url;
    this.waiter?.resolve(url);
    return true;
  }
}

/**
 * Opens `url` in the user's browser without a shell (the URL is one argument,
 * never parsed as a command). Resolves false when no browser could be started
 * (no display, no opener): the caller prints the URL for the user instead.
 */
export function openBrowser(url: string): Promise<boolean> {
  if (!/^https?:\/\//i.test(url)) return Promise.resolve(false);
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]] : ['xdg-open', [url]];
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
