import type { Logger } from 'pino';

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
type Method = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
const METHODS: Method[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/**
 * The default logger where pino cannot run: a Worker (no file descriptors, no run-time
 * `require()` in a bundle) or any runtime without Node's fs. The same calls as pino's
 * (`logger.error({ err }, 'message')`, `child`), each written as one JSON line through
 * `console`, which Workers keep in their logs (`wrangler tail`). A server can pass any
 * pino-compatible logger of its own instead (ToolServer's `logger` option).
 */
export function consoleLogger(level = 'info', bindings: Record<string, unknown> = { name: 'toolwright' }): Logger {
  const threshold = LEVELS[level] ?? LEVELS.info;
  const write = (name: Method, args: unknown[]) => {
    if (LEVELS[name] < threshold) return;
    const [first, ...rest] = args;
    const fields =
      first !== null && typeof first === 'object' && !(first instanceof Error)
        ? (first as Record<string, unknown>)
        : first instanceof Error
          ? { err: first }
          : undefined;
    const msg = fields ? rest[0] : first;
    const line: Record<string, unknown> = { level: LEVELS[name], time: Date.now(), ...bindings, ...fields, msg: msg === undefined ? undefined : String(msg) };
    if (line.err instanceof Error) line.err = { type: line.err.name, message: line.err.message, stack: line.err.stack };
    const text = safeJson(line);
    if (LEVELS[name] >= LEVELS.error) console.error(text);
    else if (LEVELS[name] >= LEVELS.warn) console.warn(text);
    else console.log(text);
  };
  const logger: Record<string, unknown> = {
    level,
    silent: () => {},
    child: (more: Record<string, unknown>) => consoleLogger(level, { ...bindings, ...more }),
    isLevelEnabled: (name: string) => (LEVELS[name] ?? Infinity) >= threshold,
  };
  for (const name of METHODS) logger[name] = (...args: unknown[]) => write(name, args);
  return logger as unknown as Logger;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    return JSON.stringify({ msg: 'a log line could not be serialised (a cycle?)' });
  }
}
