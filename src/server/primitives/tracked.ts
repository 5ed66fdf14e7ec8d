import type { Operation } from '../pipeline/operation.js';

/**
 * What the handler of a route registered `{ tracked: true }` is given: the
 * request's Operation, whose target, arguments, status, reason and
 * correlation id make its audit record (the name it had before every method
 * ran as an Operation).
 */
export type TrackedRequest = Operation;
