import type { OperatorAvailability } from '../api-types.js';
import { AuditLogMissingError } from '../../audit/query.js';
import type { AuditReader } from '../../audit/reader.js';
import { auditSummary } from '../operator/audit-summary.js';
import { OperatorQueryError, queryAuditRecords } from '../operator/audit-query.js';
import type { OperatorSources } from '../operator/sources.js';
import { runningTasks } from '../operator/tasks.js';
import type { ApiContext, ApiRoutes } from './api-routes.js';
import { ApiError } from './http-io.js';

function sourcesOf(ctx: ApiContext): OperatorSources {
  if (!ctx.operator) throw new ApiError(404, 'the operator panels need the console beside a server (toolwright serve --http --console)');
  return ctx.operator;
}

/** Opens the trail, runs `read`, closes it; refusals of the filter become 400 with their message. */
async function withReader<T>(ctx: ApiContext, empty: T, read: (reader: AuditReader) => Promise<T>): Promise<T> {
  const open = sourcesOf(ctx).openAuditReader;
  if (!open) throw new ApiError(404, 'this server keeps no audit trail the console can read (SQLite or PostgreSQL)');
  const reader = open();
  try {
    return await read(reader);
  } catch (err) {
    if (err instanceof OperatorQueryError) throw new ApiError(400, err.message);
    // Nothing recorded yet: an empty trail, not a failure.
    if (err instanceof AuditLogMissingError) return empty;
    throw err;
  } finally {
    await reader.close();
  }
}

function param(ctx: ApiContext, name: string): string | undefined {
  return ctx.query.get(name) ?? undefined;
}

/**
 * The operator panels' API (issue 25), under the same guard as every console route: the audit
 * trail's records (arguments as the sink redacted them) and summary, the running tasks, and the
 * rate limiter's current use. Each answers 404 when the console runs without that source.
 */
export const operatorRoutes = {
  'GET operator': async ({ operator }): Promise<OperatorAvailability> => {
    if (!operator) return { available: false, audit: false, tasks: false, limits: false };
    return {
      available: true,
      audit: operator.openAuditReader !== undefined,
      tasks: operator.tasks?.listUnfinished !== undefined,
      limits: operator.rateLimits ? operator.rateLimits.usage(0).store : false,
    };
  },

  'GET audit/records': async (ctx) => {
    const filter = {
      tool: param(ctx, 'tool'),
      caller: param(ctx, 'caller'),
      outcome: param(ctx, 'outcome'),
      since: param(ctx, 'since'),
      until: param(ctx, 'until'),
      limit: param(ctx, 'limit'),
      afterId: param(ctx, 'afterId'),
      beforeId: param(ctx, 'beforeId'),
    };
    return { records: await withReader(ctx, [], (reader) => queryAuditRecords(reader, filter)) };
  },

  'GET audit/summary': async (ctx) => {
    const buckets = param(ctx, 'buckets');
    const options = {
      since: param(ctx, 'since'),
      until: param(ctx, 'until'),
      ...(buckets !== undefined ? { buckets: /^\d{1,4}$/.test(buckets) ? Number(buckets) : buckets } : {}),
    };
    return withReader(ctx, { buckets: [], latency: [] }, (reader) => auditSummary(reader, options));
  },

  'GET tasks/running': async (ctx) => {
    const store = sourcesOf(ctx).tasks;
    if (!store) throw new ApiError(404, 'this server runs no tasks');
    const tasks = await runningTasks(store, 100);
    if (!tasks) throw new ApiError(404, "this server's task store cannot list its running tasks");
    return { tasks };
  },

  'GET limits': async (ctx) => {
    const limits = sourcesOf(ctx).rateLimits;
    if (!limits) throw new ApiError(404, 'rate limits are off on this server');
    const usage = limits.usage();
    const caller = param(ctx, 'caller');
    const tool = param(ctx, 'tool');
    if ((caller?.length ?? 0) > 256 || (tool?.length ?? 0) > 256) throw new ApiError(400, 'caller and tool are at most 256 characters');
    // A shared store is not scanned: it answers for the caller (and tool) the page names.
    const lookup =
      caller !== undefined || tool !== undefined
        ? (await limits.usageFor(caller, tool)).filter((use) => caller !== undefined || use.scope === 'tool')
        : undefined;
    return { ...usage, ...(lookup ? { lookup } : {}) };
  },
} satisfies ApiRoutes;
