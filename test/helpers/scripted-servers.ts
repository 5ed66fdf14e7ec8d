import { afterEach } from 'vitest';
import { startScriptedHttp } from './scripted-http.js';

export type ScriptedServer = Awaited<ReturnType<typeof startScriptedHttp>>;

/**
 * Call at a test file's top level: returns `start`, which opens a scripted
 * HTTP server (startScriptedHttp) that is closed after the test that opened it.
 */
export function scriptedServersPerTest(): (handler: Parameters<typeof startScriptedHttp>[0]) => Promise<ScriptedServer> {
  const servers: ScriptedServer[] = [];
  afterEach(async () => {
    while (servers.length) await servers.pop()!.close();
  });
  return async (handler) => {
    const server = await startScriptedHttp(handler);
    servers.push(server);
    return server;
  };
}
