import type { AuditReader } from '../../audit/reader.js';
import { OperatorQueryError, parseOperatorDate } from './audit-query.js';
import type { AuditBucket, AuditSummary } from './types.js';

const MAX_BUCKETS = 500;

/** Nearest-rank percentile of sorted durations. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * Calls and errors per time bucket between `since` and `until`, and latency per tool.
 * Streams the records of the span through the reader (memory: one duration per call).
 */
export async function auditSummary(reader: AuditReader, options: { since: unknown; until: unknown; buckets?: unknown }): Promise<AuditSummary> {
  const since = parseOperatorDate('since', options.since);
  const until = parseOperatorDate('until', options.until);
  if (!since || !until) throw new OperatorQueryError('since and until are required');
  if (since >= until) throw new OperatorQueryError('since must be before until');
  const count = options.buckets ?? 24;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_BUCKETS)
    throw new OperatorQueryError(`buckets must be an integer from 1 to ${MAX_BUCKETS}`);
  const width = (until.getTime() - since.getTime()) / count;
  const buckets: AuditBucket[] = Array.from({ length: count }, (_, i) => ({ start: new Date(since.getTime() + i * width).toISOString(), calls: 0, errors: 0 }));
  const durations = new Map<string, number[]>();
  for await (const record of reader.query({ since, until, limit: false })) {
    const index = Math.min(count - 1, Math.floor((Date.parse(record.time) - since.getTime()) / width));
    const bucket = buckets[index];
    if (!bucket) continue;
    bucket.calls++;
    if (record.isError || record.status !== 'ok') bucket.errors++;
    const list = durations.get(record.tool) ?? [];
    list.push(record.durationMs);
    durations.set(record.tool, list);
  }
  const latency = [...durations].map(([tool, list]) => {
    list.sort((a, b) => a - b);
    return { tool, count: list.length, p50: percentile(list, 50), p95: percentile(list, 95), max: list[list.length - 1] ?? 0 };
  });
  latency.sort((a, b) => a.tool.localeCompare(b.tool));
  return { buckets, latency };
}
