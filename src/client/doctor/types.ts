import type { OAuthClient } from '../auth/oauth-client.js';
import type { TokenStore } from '../auth/types.js';
import type { EraPreference } from '../types.js';

/** One check of the connection doctor, in the order it ran. */
export interface DoctorStep {
  id: 'url' | 'dns' | 'tcp' | 'tls' | 'http' | 'auth-metadata' | 'token' | 'era' | 'tools' | 'spawn' | (string & {});
  status: 'ok' | 'failed' | 'skipped' | 'warning';
  summary: string;
  detail?: string;
  hint?: string;
  /** How long the step took, in milliseconds. */
  ms: number;
}

/** What `diagnoseConnection` found: `ok` when the server connected and listed its tools. */
export interface DoctorReport {
  ok: boolean;
  steps: DoctorStep[];
}

export interface DoctorOptions {
  era?: EraPreference;
  /** Bound of each step (default 5000 ms). */
  stepTimeoutMs?: number;
  /** Bound of the whole run (default 30000 ms). */
  totalTimeoutMs?: number;
  /** Where `toolwright login` keeps tokens (default: none is looked at). */
  tokenStore?: TokenStore;
  /** Used for the MCP session, as ToolClient's `authorization`. */
  authorization?: OAuthClient;
}
