import type { ToolServer } from '../server/server.js';
import type { CliIo } from './errors.js';

/**
 * At start-up, with `server.state`: says on stderr where shared state is (never the URL's
 * password) and waits for the first connection. A Redis that cannot be reached yet does not
 * stop start-up (it may come up after this instance): the server reconnects on its own and,
 * until then, refuses what needs it (or serves on, under onFailure: open).
 */
export async function checkSharedState(server: ToolServer, io: CliIo): Promise<void> {
  if (server.stateLocation === 'memory') return;
  io.stderr(`toolwright: shared state in ${server.stateLocation}\n`);
  if (!(await server.stateReady())) {
    io.stderr(
      `toolwright: warning: shared state cannot be reached yet (${server.stateLocation}); reconnecting on its own, and refusing calls that need it until then\n`,
    );
  }
}
