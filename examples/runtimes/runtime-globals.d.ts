// The parts of Deno's and Bun's globals the runtime examples use, so that `npm run typecheck`
// checks the examples against toolwright's sources under Node's types (each runtime brings its
// own full declarations: `deno check`, `bun-types`).
declare namespace Deno {
  const env: { get(name: string): string | undefined };
  interface ServeHandlerInfo {
    remoteAddr: { hostname: string; port: number };
  }
  function serve(
    options: { hostname?: string; port?: number; onListen?: (address: { hostname: string; port: number }) => void },
    handler: (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void> };
}

declare namespace Bun {
  interface Server {
    readonly port: number;
    requestIP(request: Request): { address: string; port: number } | null;
  }
  function serve(options: {
    hostname?: string;
    port?: number;
    idleTimeout?: number;
    fetch(request: Request, server: Server): Response | Promise<Response>;
  }): Server;
}
