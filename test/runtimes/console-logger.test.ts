import { afterEach, describe, expect, it, vi } from 'vitest';
import { consoleLogger } from '../../src/runtime/console-logger.js';

// The default logger in a Worker (createLogger falls back to it where pino cannot be loaded):
// pino's calls, one JSON line each through console. workerd.test.ts sees it log a tool failure.
describe('consoleLogger', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes one JSON line per message at or above its level, errors through console.error', () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(`error ${line}`));
    vi.spyOn(console, 'warn').mockImplementation((line: string) => void lines.push(`warn ${line}`));
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(`log ${line}`));
    const logger = consoleLogger('warn');
    logger.info('not written');
    logger.warn({ calls: 2 }, 'stopping');
    logger.child({ requestId: 'r1' }).error({ err: new Error('kaboom') }, 'tool call failed');
    expect(lines).toHaveLength(2);
    expect(lines[0].startsWith('warn ')).toBe(true);
    expect(JSON.parse(lines[0].slice(5))).toMatchObject({ level: 40, name: 'toolwright', calls: 2, msg: 'stopping' });
    expect(lines[1].startsWith('error ')).toBe(true);
    expect(JSON.parse(lines[1].slice(6))).toMatchObject({ level: 50, requestId: 'r1', msg: 'tool call failed', err: { type: 'Error', message: 'kaboom' } });
    expect(logger.isLevelEnabled('info')).toBe(false);
    expect(logger.isLevelEnabled('error')).toBe(true);
  });
});
