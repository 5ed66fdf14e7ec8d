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
 * authorization server. Each return goes to the authorization whose state it
 * carries, once; anything else is refused; the page it shows repeats nothing
 * from the request.
 *
 *   const loopback = await LoopbackRedirect.listen();
 *   const oauth = new OAuthClient(url, { redirectUri: loopback.redirectUri, authorize: loopback.authorize });
 */
export class LoopbackRedirect {
  /** The authorizations waiting for their browser, by the state their request carries. */
  private readonly waiting = new Map<string, (url: URL) => void>();

  private constructor(
    private readonly server: Server,
    readonly redirectUri: string,
    private readonly options: LoopbackOptions,
  ) {}

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
      res.writeHead(done ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end(PAGE(done ? 'Authorization received' : 'No authorization is waiting for this'));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    // Idle, the listener does not keep the process alive; while an authorization waits for its
    // browser it must (waitForRedirect refs it): the waiting promise alone is no reason for Node
    // to stay, and a CLI whose only work is that wait exited at once (issue 21).
    server.unref();
    const port = (server.address() as AddressInfo).port;
    loopback = new LoopbackRedirect(server, `http://127.0.0.1:${port}${path}`, options);
    return loopback;
  }

  /** For OAuthOptions.authorize: shows the URL, waits for the browser to come back with this request's state. */
  readonly authorize = async (prompt: AuthorizationPrompt): Promise<URL> => {
    const waiting = this.waitForRedirect(prompt.url.searchParams.get('state') ?? '', prompt.signal);
    (this.options.onPrompt ?? ((p) => void openBrowser(p.url.href)))(prompt);
    return waiting;
  };

  /** Resolves with the URL the browser came back to (query included) carrying `state`. */
  waitForRedirect(state: string, signal?: AbortSignal): Promise<URL> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<URL>((resolve, reject) => {
      const onAbort = () => {
        this.stopWaiting(state);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(state, (url) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(url);
      });
      this.server.ref();
    });
  }

  private stopWaiting(state: string): void {
    this.waiting.delete(state);
    if (this.waiting.size === 0) this.server.unref();
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Hands a return to the authorization waiting for its state, once; anything else is refused. */
  private accept(url: URL): boolean {
    const state = url.searchParams.get('state');
    const resolve = state === null ? undefined : this.waiting.get(state);
    if (!resolve || !(url.searchParams.has('code') || url.searchParams.has('error'))) return false;
    this.stopWaiting(state!);
    resolve(url);
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
