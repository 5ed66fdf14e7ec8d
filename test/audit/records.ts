import type { AuditRecord } from '../../src/audit/record.js';

/** A complete record with sensible defaults, for sink and query tests. */
export function auditRecord(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    time: new Date().toISOString(),
    era: 'modern',
    protocolVersion: '2026-07-28',
    principal: null,
    tool: 'echo',
    argumentsJson: '{"text":"hi"}',
    status: 'ok',
    isError: false,
    durationMs: 1.25,
    correlationId: null,
    requestId: 1,
    clientName: 'test-client',
    errorCode: null,
    ...overrides,
  };
}
