/**
 * The rate-limit script's command name on the shared client: take-batch.ts defines it, and
 * connection.ts keeps it out of auto-pipelining (the batch is its own pipeline).
 */
export const TAKE_MANY_COMMAND = 'toolwrightTakeMany';
