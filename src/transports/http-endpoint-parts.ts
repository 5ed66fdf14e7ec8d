import type { ToolServer } from '../server/server.js';
import type { AuthFailureThrottle } from './http-auth-throttle.js';
import type { HttpAuthorization } from './http-authorization.js';
import type { HostGuardOptions } from './http-guard.js';
import type { SessionStore } from './http-sessions.js';
import type { StreamSlots } from './stream-slots.js';

/** What one MCP endpoint serves with: built once by createHttpHandler (http-handler.ts). */
export interface EndpointParts {
  /** Served through its public connections (`server.connect`): one per legacy session, one per modern request. */
  server: ToolServer;
  guard: HostGuardOptions;
  maxBodyBytes: number;
  keepAliveMs: number;
  /** False: the stateless era alone (HttpHandlerOptions.legacySessions). */
  legacySessions: boolean;
  trustProxy: boolean;
  sessions: SessionStore;
  streams: StreamSlots;
  authorization?: HttpAuthorization;
  authThrottle?: AuthFailureThrottle;
}
