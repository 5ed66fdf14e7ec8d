/** The data behind the console's operator panels (issue 25): plain functions the console's API calls. */
export { MAX_OPERATOR_LIMIT, OperatorQueryError, queryAuditRecords, toAuditQuery, type OperatorAuditFilter } from './audit-query.js';
export { auditSummary } from './audit-summary.js';
export { runningTasks } from './tasks.js';
export type { AuditBucket, AuditSummary, RunningTask, ToolLatency } from './types.js';
export { operatorSources, type OperatorSources } from './sources.js';
