/**
 * Legacy session records (docs/deployment.md): what a 2025-11-25-era `initialize` established for
 * one `Mcp-Session-Id`, kept where every instance behind the balancer can read it, so a request
 * of that session is served by whichever instance gets it. The instance that did not see the
 * handshake resumes the session from its record (protocol version, client capabilities and info,
 * log level) for the caller who opened it, and no one else.
 *
 * Without records (the default), a session lives in the process that created it, as before: a
 * balancer must then send a session's requests to that process (affinity on Mcp-Session-Id).
 */
export interface SessionRecord {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: { name: string; version: string; [key: string]: unknown };
  logLevel?: string;
  /** The key (callerKey) of the caller who opened it; absent: opened without authorization. */
  owner?: string;
}

export interface SessionRecords {
  /** Keeps `record` under `id` for `ttlMs` from now (an idle session is forgotten after it). */
  put(id: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /** The record, if kept; its time to live starts again (the session is in use). */
  get(id: string, ttlMs: number): Promise<SessionRecord | undefined>;
  /** Starts its time to live again (a request of the session reached this instance); false: it is no longer kept (ended or expired). */
  touch(id: string, ttlMs: number): Promise<boolean>;
  /** The session ended (DELETE): no instance serves it again. */
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}

/** Largest record read back (a client's capabilities and info are small; a huge one is refused). */
const MAX_SESSION_RECORD_CHARS = 64 * 1024;

/** The record as read back, or undefined when it is not one (never trusted blindly: it crossed a network). */
export function parseSessionRecord(text: string | null | undefined): SessionRecord | undefined {
  if (typeof text !== 'string' || text.length > MAX_SESSION_RECORD_CHARS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r.protocolVersion !== 'string' || !r.clientCapabilities || typeof r.clientCapabilities !== 'object' || Array.isArray(r.clientCapabilities))
    return undefined;
  if (r.owner !== undefined && typeof r.owner !== 'string') return undefined;
  return r as unknown as SessionRecord;
}

/** Records in this process (one instance; tests, and a model for other stores). */
export class InMemorySessionRecords implements SessionRecords {
  private readonly records = new Map<string, { text: string; expires: number }>();

  async put(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.records.set(id, { text: JSON.stringify(record), expires: Date.now() + ttlMs });
  }

  async get(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    const entry = this.records.get(id);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.records.delete(id);
      return undefined;
    }
    entry.expires = Date.now() + ttlMs;
    return parseSessionRecord(entry.text);
  }

  async touch(id: string, ttlMs: number): Promise<boolean> {
    const entry = this.records.get(id);
    if (!entry || entry.expires <= Date.now()) return false;
    entry.expires = Date.now() + ttlMs;
    return true;
  }

  async delete(id: string): Promise<void> {
    this.records.delete(id);
  }

  async close(): Promise<void> {
    this.records.clear();
  }
}
