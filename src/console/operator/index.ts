/** The data behind the console's operator panels (issue 25): plain functions the console's API calls. */
export { MAX_OPERATOR_LIMIT, OperatorQueryError, queryAuditRecords, toAuditQuery, type OperatorAuditFilter } from './audit-query.js';
export { auditSummary, type AuditBucket, type AuditSummary, type ToolLatency } from './audit-summary.js';
export { runningTasks, type RunningTask } from './tasks.js';
export { operatorSources, type OperatorSources } from './sources.js';
