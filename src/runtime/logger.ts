import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import { consoleLogger } from './console-logger.js';

export type { Logger };

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/**
 * Server diagnostics: structured JSON (pino) on stderr, never stdout (stdout is
 * the stdio transport's protocol channel). pino is loaded on the first message
 * at or above `level`, not at start-up: most servers log little, and quickly.
 * Where pino cannot be loaded or cannot write to fd 2 (a bundled Worker: no
 * run-time `require()`, no file descriptors), the same lines go to `console`.
 */
export function createLogger(level: string = envLevel() ?? 'info'): Logger {
  let real: Logger | undefined;
  const threshold = LEVELS[level] ?? LEVELS.info;
  const load = (): Logger => {
    real ??= pinoLogger(level) ?? consoleLogger(level);
    return real;
  };
  const method =
    (name: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal') =>
    (...args: unknown[]) => {
      if (LEVELS[name] >= threshold) (load()[name] as (...a: unknown[]) => void)(...args);
    };
  const facade = {
    level,
    trace: method('trace'),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    fatal: method('fatal'),
    silent: () => {},
    child: (bindings: Record<string, unknown>) => load().child(bindings),
    isLevelEnabled: (name: string) => (LEVELS[name] ?? Infinity) >= threshold,
  };
  return facade as unknown as Logger;
}

function pinoLogger(level: string): Logger | undefined {
  try {
    const { pino } = createRequire(import.meta.url)('pino') as typeof import('pino');
    return pino({ level, base: { name: 'toolwright' } }, pino.destination({ fd: 2, sync: true }));
  } catch {
    return undefined;
  }
}

/** TOOLWRIGHT_LOG_LEVEL, where there is a process to read it from (a Worker without nodejs_compat has none). */
function envLevel(): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.TOOLWRIGHT_LOG_LEVEL;
}
