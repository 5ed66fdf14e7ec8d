/**
 * The MCP handler mounted in real Express 5, Fastify 5 and Hono (node
 * adapter) apps, each with routes of its own, through the same battery as
 * node:http (test/helpers/mounted-mcp.ts). A framework that is not installed
 * skips its tests and says so (devDependencies: express@^5, fastify@^5,
 * hono, @hono/node-server).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeMounted, HEALTH_TEXT, missingPackages, type MountedApp } from '../helpers/mounted-mcp.js';

const noExpress = await missingPackages('express');
const noFastify = await missingPackages('fastify');
const noHono = await missingPackages('hono', '@hono/node-server');

function closing(server: Server): MountedApp['close'] {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

async function listening(server: Server): Promise<MountedApp> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: closing(server) };
}

async function expressApp() {
  const { default: express } = (await import('express' as string)) as { default: any };
  const app = express();
  app.get('/health', (_req: unknown, res: { send(text: string): void }) => res.send(HEALTH_TEXT));
  return { app, express };
}

describeMounted(
  'Express 5: app.use(handler.handle) before the body parsers',
  async (handler) => {
    const { app, express } = await expressApp();
    app.use(handler.handle);
    app.use(express.json());
    return listening(app.listen(0, '127.0.0.1'));
  },
  { skip: noExpress },
);

describeMounted(
  'Express 5: after express.json(), serving the body it parsed',
  async (handler) => {
    const { app, express } = await expressApp();
    app.use(express.json());
    app.use(handler.handle);
    return listening(app.listen(0, '127.0.0.1'));
  },
  { skip: noExpress },
);

describeMounted(
  'Express 5: under a prefix (app.use("/api", …)), matching the whole path /api/mcp',
  async (handler) => {
    const { app } = await expressApp();
    app.use('/api', handler.handle);
    return listening(app.listen(0, '127.0.0.1'));
  },
  { skip: noExpress, mcpPath: '/api/mcp' },
);

describeMounted(
  'Fastify 5: a hijacked route on the raw request and response, body left unparsed',
  async (handler) => {
    const { default: Fastify } = (await import('fastify' as string)) as { default: any };
    const app = Fastify();
    app.get('/health', async () => HEALTH_TEXT);
    await app.register(async (scope: any) => {
      // The handler reads and limits the body itself: this scope's parser leaves the stream alone.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request: unknown, _payload: unknown, done: (err: null) => void) => done(null));
      scope.all('/mcp', (request: any, reply: any) => {
        reply.hijack();
        handler.handle(request.raw, reply.raw);
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },
  { skip: noFastify },
);

describeMounted(
  'Hono on @hono/node-server: app.all("/mcp", c => handler.fetch(c.req.raw))',
  async (handler) => {
    const { Hono } = (await import('hono' as string)) as { Hono: any };
    const { serve } = (await import('@hono/node-server' as string)) as { serve: any };
    const app = new Hono();
    app.get('/health', (c: any) => c.text(HEALTH_TEXT));
    app.all('/mcp', (c: any) => handler.fetch(c.req.raw, { remoteAddress: c.env.incoming.socket.remoteAddress }));
    const server: Server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    return listening(server);
  },
  { skip: noHono },
);
