import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Server diagnostics: structured JSON on stderr, never stdout (stdout is the
 * stdio transport's protocol channel).
 */
export function createLogger(level: string = process.env.TOOLWRIGHT_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { name: 'toolwright' } }, pino.destination({ fd: 2, sync: true }));
}
