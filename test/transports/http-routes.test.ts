import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import type { HttpServeOptions } from '../../src/transports/http-server.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>> | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const logged = memoryLogger();
const start = async (options: HttpServeOptions) => {
  http = await startHttp(
    new ToolServer({ logger: logged.logger, audit: false, tools: [{ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'a' }] }),
    options,
  );
  return { ...http, base: http.url.replace(/\/mcp$/, '') };
};

describe('serveHttp routes beside MCP', () => {
  it('serves its routes by exact path (query ignored), MCP on its path, and 404 elsewhere', async () => {
    const s = await start({
      routes: {
        '/health': (_req, res) => res.end('ok'),
        '/about': async (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('about'),
      },
    });
    expect(await (await fetch(`${s.base}/health`)).text()).toBe('ok');
    expect(await (await fetch(`${s.base}/health?probe=1`)).text()).toBe('ok');
    expect(await (await fetch(`${s.base}/about`)).text()).toBe('about');
    expect((await (await s.modern('tools/list')).json()).result.tools).toHaveLength(1);
    const other = await fetch(`${s.base}/health/deeper`);
    expect(other.status).toBe(404);
    expect(await other.text()).toBe('Not Found');
  });

  it('hands every other path to the fallback', async () => {
    const s = await start({ routes: { '/health': (_req, res) => res.end('ok') }, fallback: (req, res) => res.writeHead(200).end(`fallback ${req.url}`) });
    expect(await (await fetch(`${s.base}/x/y?z=1`)).text()).toBe('fallback /x/y?z=1');
    expect(await (await fetch(`${s.base}/health`)).text()).toBe('ok');
  });

  it('answers 500 for a route that throws or rejects, and logs what happened', async () => {
    const s = await start({
      routes: {
        '/throws': () => {
          throw new Error('route broke');
        },
        '/rejects': async () => {
          throw new Error('route broke later');
        },
      },
    });
    for (const path of ['/throws', '/rejects']) {
      const res = await fetch(`${s.base}${path}`);
      expect(res.status).toBe(500);
      expect(await res.text()).toBe('Internal Server Error');
    }
    expect(logged.records.filter((r) => r.msg === 'HTTP route failed').map((r) => r.err.message)).toEqual(['route broke', 'route broke later']);
  });

  it('refuses a route on the MCP path, or one that is no path', async () => {
    await expect(start({ routes: { '/mcp': (_req, res) => res.end() } })).rejects.toThrow("HTTP: route /mcp is the MCP endpoint's path");
    await expect(start({ routes: { health: (_req, res) => res.end() } })).rejects.toThrow('HTTP: route path must start with "/"');
  });
});
