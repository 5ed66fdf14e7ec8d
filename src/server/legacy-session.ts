import type { ClientCapabilities, Implementation, LogLevel } from '../protocol/meta.js';

/** What a legacy `initialize` handshake established for one stdio process or HTTP session. */
export interface LegacySession {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** Set by `logging/setLevel`. */
  logLevel?: LogLevel;
}
