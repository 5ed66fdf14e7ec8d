// What the console's operator API answers: plain types with no imports, so the console's front
// end (src/console/ui, browser code) shares them with the functions that compute them.

/** Calls and errors recorded in one time bucket. */
export interface AuditBucket {
  /** The bucket's start, ISO 8601. */
  start: string;
  calls: number;
  errors: number;
}

/** One tool's call durations over a span, in ms. */
export interface ToolLatency {
  tool: string;
  count: number;
  p50: number;
  p95: number;
  max: number;
}

export interface AuditSummary {
  buckets: AuditBucket[];
  latency: ToolLatency[];
}

/** A task as the operator panel shows it: no arguments, result or input requests. */
export interface RunningTask {
  taskId: string;
  tool: string;
  status: string;
  /** The caller that owns the task (its id, as the audit trail shows it). */
  owner: string;
  createdAt: string;
  lastUpdatedAt: string;
}
