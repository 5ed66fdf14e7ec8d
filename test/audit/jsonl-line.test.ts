import { describe, expect, it } from 'vitest';
import { auditJsonLine, parseAuditJsonLine } from '../../src/audit/jsonl-line.js';
import type { AuditRecord } from '../../src/audit/record.js';
import { auditRecord } from './records.js';

/** The trail's fixed order of members, whatever a record object's own key order. */
const ORDER = [
  'time',
  'era',
  'protocolVersion',
  'principal',
  'clientId',
  'scopes',
  'tenant',
  'method',
  'tool',
  'status',
  'isError',
  'durationMs',
  'correlationId',
  'requestId',
  'clientName',
  'errorCode',
  'reason',
  'instance',
  'upstream',
] as const;

/** The line as JSON.stringify writes it from a copy of the record in that order: what the trail wrote before it was written member by member. */
function stringifiedLine(e: AuditRecord): string {
  const fields = Object.fromEntries(ORDER.map((key) => [key, e[key]]));
  return `${JSON.stringify(fields).slice(0, -1)},"arguments":${e.argumentsJson}}\n`;
}

const HOSTILE = 'a "quoted" \\ back\nnew line\r\t\u0000\u001f \u2028\u2029 </script> ünï 😀';

/** Every field set (Required: a field added to AuditRecord fails to compile here until it is added). */
const everyField: Required<AuditRecord> = {
  time: '2026-11-29T19:00:00.000Z',
  era: 'legacy',
  protocolVersion: '2025-11-25',
  principal: HOSTILE,
  clientId: `client ${HOSTILE}`,
  scopes: ['files:read', HOSTILE],
  tenant: `tenant ${HOSTILE}`,
  method: 'tools/call',
  tool: `tool ${HOSTILE}`,
  argumentsJson: JSON.stringify({ path: HOSTILE, n: [1, 2.5, null] }),
  status: 'refused',
  isError: true,
  durationMs: 12.345,
  correlationId: 'corr-1',
  requestId: `id ${HOSTILE}`,
  clientName: `client name ${HOSTILE}`,
  errorCode: -32602,
  reason: 'rate_limit',
  instance: `host:${HOSTILE}`,
  upstream: `up ${HOSTILE}`,
};

describe('auditJsonLine: one record, one line of JSON', () => {
  it('writes every field, hostile text escaped, exactly as JSON.stringify would', () => {
    const line = auditJsonLine(everyField);
    expect(line).toBe(stringifiedLine(everyField));
    expect(line.indexOf('\n')).toBe(line.length - 1);
    const { argumentsJson, ...fields } = everyField;
    expect(JSON.parse(line)).toEqual({ ...fields, arguments: JSON.parse(argumentsJson) });
  });

  it('leaves out the fields a record does not have, as JSON.stringify leaves out undefined', () => {
    const plain = auditRecord({ requestId: 7 });
    const line = auditJsonLine(plain);
    expect(line).toBe(stringifiedLine(plain));
    for (const absent of ['clientId', 'scopes', 'tenant', 'method', 'reason', 'instance', 'upstream']) expect(line).not.toContain(`"${absent}"`);
  });

  it('writes values a JavaScript caller can hand a sink the way JSON.stringify does (no invalid line)', () => {
    // A sink is public API: plain JavaScript can pass what the types forbid.
    const odd = {
      ...auditRecord(),
      durationMs: Number.NaN,
      requestId: undefined,
      principal: undefined,
      errorCode: Number.POSITIVE_INFINITY,
    } as unknown as AuditRecord;
    const line = auditJsonLine(odd);
    expect(line).toBe(stringifiedLine(odd));
    expect(() => JSON.parse(line)).not.toThrow();
  });

  it('writes each record as it is when consecutive records share most members and differ in one', () => {
    // The members a run of records usually shares are written once and reused: a change in any
    // of them must show in the very next line.
    const base = auditRecord({ requestId: 1 });
    const variants: Array<Partial<AuditRecord>> = [
      {},
      { tool: 'other' },
      { status: 'tool_error' },
      { principal: 'alice' },
      { era: 'legacy' },
      { protocolVersion: '2025-11-25' },
      { clientId: 'app' },
      { tenant: 't1' },
      { method: 'prompts/get' },
      { isError: true },
      {},
      { time: '2026-01-01T00:00:00.000Z', durationMs: 3, requestId: 'x', reason: 'timeout' },
    ];
    for (const variant of variants) {
      // The same record, the one that differs only by the variant, then the first again.
      for (const record of [base, { ...base, ...variant }, base]) expect(auditJsonLine(record)).toBe(stringifiedLine(record));
    }
  });

  it('writes the scopes a record has now, even when a caller changes one array between records', () => {
    const scopes = ['files:read'];
    const record = auditRecord({ scopes });
    expect(auditJsonLine(record)).toContain('"scopes":["files:read"]');
    scopes.push('files:write');
    expect(auditJsonLine(record)).toContain('"scopes":["files:read","files:write"]');
    expect(auditJsonLine(auditRecord())).not.toContain('scopes');
  });

  it('writes an object a JavaScript caller passes where text belongs as it is now, even changed in place', () => {
    const tool = { name: 'first' };
    const record = { ...auditRecord(), tool } as unknown as AuditRecord;
    expect(auditJsonLine(record)).toBe(stringifiedLine(record));
    tool.name = 'second';
    expect(auditJsonLine(record)).toContain('"tool":{"name":"second"}');
  });

  it('reads back as the record it was written from', () => {
    const stored = parseAuditJsonLine(auditJsonLine(everyField).trimEnd(), 3);
    expect(stored).toEqual({ id: 3, ...everyField });
  });
});
