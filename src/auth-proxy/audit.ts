import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditArgumentsJson } from '../audit/arguments.js';
import type { AuditReason, AuditRecord, AuditSink } from '../audit/record.js';
import { FixedWindows } from '../policy/fixed-windows.js';
import type { Logger } from '../runtime/logger.js';
import type { AuditHealth } from './audit-health.js';
import { clientAddressKey } from '../transports/client-address.js';

/**
 * The facade's events in the server's audit trail, one record each: a client registered, a
 * consent given, a sign-in at the provider, tokens issued or refreshed, a grant revoked, and
 * every refused request with why. The record's `method` says which (`oauth/register`,
 * `oauth/consent`, `oauth/sign-in`, `oauth/token`, `oauth/refresh`, `oauth/revoke`,
 * `oauth/authorize`, `oauth/callback`), `tool` the path, `principal` the provider's user id
 * once known (what the same user's tool calls are recorded under). What the handlers note is
 * chosen field by field: never a code, a token, a client secret, a state or a verifier.
 */
export type FacadeMethod = 'register' | 'consent' | 'sign-in' | 'token' | 'refresh' | 'revoke' | 'authorize' | 'callback';

/** What one request noted as it was handled; a request that noted no outcome leaves no record (a page shown, a document read). */
export interface FacadeEvent {
  method?: FacadeMethod;
  outcome?: 'ok' | 'refused';
  reason?: AuditReason;
  clientId?: string;
  clientName?: string;
  subject?: string;
  scopes?: readonly string[];
  /** Plain, non-secret details (grant_type, redirect_uri, token_type_hint, …). */
  details?: Record<string, unknown>;
}

const events = new WeakMap<ServerResponse, FacadeEvent>();

/** Adds to what the request handled on `res` will be recorded as. */
export function note(res: ServerResponse, fields: FacadeEvent): void {
  const event = events.get(res);
  if (event) Object.assign(event, fields, fields.details ? { details: { ...event.details, ...fields.details } } : {});
}

/** The request on `res` was refused, for `reason` (the first reason noted wins: a replay stays a replay when answered `invalid_grant`). */
export function noteRefused(res: ServerResponse, reason: AuditReason): void {
  const event = events.get(res);
  if (!event) return;
  event.outcome = 'refused';
  event.reason ??= reason;
}

/** Longest client-chosen text kept in a record field (a client name, a metadata-document client id). */
const MAX_FIELD_CHARS = 256;
const clip = (text: string | undefined) => (text === undefined ? undefined : text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text);

/**
 * Refusal records per client address and minute. The browser pages (/authorize, consent,
 * callback) have no rate limit of their own: past this, one address's refusals are counted, not
 * written, so nobody can flood the trail (and push older records out at its size limit).
 */
const REFUSALS_PER_MINUTE = 60;

/**
 * Runs `route` with an event to fill, then writes its record (before the route's promise
 * settles, as the answer is written: an audited facade event is in the trail once the request
 * is done). A failed write is the server's audit failure, handled by its policy
 * (server.audit.onFailure, through `health`): the request that lost its record has its answer
 * already; under 'refuse' the next sign-in steps are refused (`admits`) until the trail is back.
 */
export class FacadeAudit {
  private readonly refusals = new FixedWindows(REFUSALS_PER_MINUTE, 60_000);
  /** Refusal records not written (an address over its share), since the last warning. */
  private skipped = 0;

  constructor(
    private readonly sink: AuditSink,
    private readonly instance: string | undefined,
    private readonly logger: Logger | undefined,
    private readonly trustProxy: boolean,
    private readonly health: AuditHealth,
  ) {}

  /** False while the trail cannot be written and the policy is to refuse: the request must not run. */
  admits(): boolean {
    try {
      this.health.admit();
      return true;
    } catch {
      return false;
    }
  }

  async around(method: FacadeMethod, path: string, req: IncomingMessage, res: ServerResponse, route: () => Promise<void>): Promise<void> {
    const started = performance.now();
    const event: FacadeEvent = { method };
    events.set(res, event);
    try {
      await route();
    } finally {
      events.delete(res);
      if (event.outcome && (event.outcome === 'ok' || this.refusalAllowed(req))) await this.write(this.recordOf(event, path, performance.now() - started));
    }
  }

  private refusalAllowed(req: IncomingMessage): boolean {
    if (this.refusals.take(clientAddressKey({ headers: req.headers, remoteAddress: req.socket.remoteAddress }, this.trustProxy)) === undefined) return true;
    if (this.skipped++ === 0)
      this.logger?.warn(
        { perMinute: REFUSALS_PER_MINUTE },
        'auth-proxy: an address is refused more often than its refusals are audited; the rest are counted, not written',
      );
    else if (this.skipped % 1000 === 0) this.logger?.warn({ skipped: this.skipped }, 'auth-proxy: refusal records not written (one address over its share)');
    return false;
  }

  private recordOf(event: FacadeEvent, path: string, durationMs: number): AuditRecord {
    const refused = event.outcome === 'refused';
    return {
      time: new Date().toISOString(),
      era: 'modern',
      protocolVersion: 'oauth',
      principal: clip(event.subject) ?? null,
      ...(event.clientId ? { clientId: clip(event.clientId) } : {}),
      ...(event.scopes ? { scopes: [...event.scopes] } : {}),
      method: `oauth/${event.method}`,
      tool: path,
      argumentsJson: auditArgumentsJson(event.details ?? {}),
      status: refused ? 'refused' : 'ok',
      isError: refused,
      durationMs,
      correlationId: null,
      requestId: null,
      clientName: clip(event.clientName) ?? null,
      errorCode: null,
      ...(refused && event.reason ? { reason: event.reason } : {}),
      ...(this.instance ? { instance: this.instance } : {}),
    };
  }

  private async write(record: AuditRecord): Promise<void> {
    try {
      await this.sink.record(record);
    } catch (err) {
      this.health.failed(err, record.method ?? 'oauth', null);
    }
  }
}
