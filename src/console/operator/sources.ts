import type { AuditReader } from '../../audit/reader.js';
import type { AuditSink } from '../../audit/record.js';
import { FanoutAuditSink } from '../../audit/fanout-sink.js';
import type { RateLimiter } from '../../policy/rate-limit.js';
import type { ToolServer } from '../../server/server.js';
import type { TaskStore } from '../../tasks/store.js';

/** What the operator panels read of one server. */
export interface OperatorSources {
  /** Opens a reader of the server's audit trail (the caller closes it); absent without a readable trail. */
  openAuditReader?: () => AuditReader;
  /** The server's task store; absent without tasks. */
  tasks?: TaskStore;
  /** The server's rate limiter, read only (usage, usageFor); absent when rate limits are off. */
  rateLimits?: Pick<RateLimiter, 'usage' | 'usageFor'>;
}

/** A sink that can open a reader of its own trail (SqliteAuditSink, PostgresAuditSink). */
interface ReadableSink extends AuditSink {
  reader(): AuditReader;
}

function isReadable(sink: AuditSink): sink is ReadableSink {
  return typeof (sink as Partial<ReadableSink>).reader === 'function';
}

function readableSink(sink: AuditSink | undefined): ReadableSink | undefined {
  if (!sink) return undefined;
  if (isReadable(sink)) return sink;
  // A fan-out (e.g. SQLite plus JSON lines): the first of its sinks that can be read back.
  if (sink instanceof FanoutAuditSink) return sink.sinks.find(isReadable);
  return undefined;
}

/** The audit trail, task store and rate limiter behind a server's operator panels, from its public fields. */
export function operatorSources(server: ToolServer): OperatorSources {
  const sources: OperatorSources = {};
  const sink = readableSink(server.audit);
  if (sink) sources.openAuditReader = () => sink.reader();
  if (server.taskStore) sources.tasks = server.taskStore;
  if (server.rateLimiter) sources.rateLimits = server.rateLimiter;
  return sources;
}
