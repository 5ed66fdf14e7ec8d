import { describe, expect, it } from 'vitest';
import { lifecycleTools, logLine, startHttpServe, startStdioServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('toolwright serve and errors nobody handled', () => {
  it('HTTP: a tool that leaves an unhandled rejection after answering is logged with a correlation id, and the next call is answered', async () => {
    const serve = await startHttpServe(['--tools', lifecycleTools], { cwd: tempDir('toolwright-serve-') });
    const first = await (await serve.call('leak_rejection')).json();
    expect(first.result.content[0].text).toBe('answered');
    await expect.poll(() => logLine(serve.stderr(), /unhandled promise rejection/), { timeout: 5_000 }).toBeDefined();
    const logged = logLine(serve.stderr(), /unhandled promise rejection/)!;
    expect(logged).toMatchObject({ level: 50, correlationId: expect.stringMatching(UUID), err: { message: 'stray failure after the answer' } });
    const next = await (await serve.call('sleep', { ms: 1 })).json();
    expect(next.result.content[0].text).toBe('slept 1 ms');
    expect(serve.child.exitCode).toBeNull();
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
  });

  it('stdio: the same rejection is logged on stderr (never stdout), and serving goes on', async () => {
    const serve = startStdioServe(['--tools', lifecycleTools], { cwd: tempDir('toolwright-serve-') });
    expect((await serve.call('leak_rejection')).result.content[0].text).toBe('answered');
    await expect
      .poll(() => logLine(serve.stderr(), /unhandled promise rejection/), { timeout: 5_000 })
      .toMatchObject({ correlationId: expect.stringMatching(UUID) });
    expect((await serve.call('sleep', { ms: 1 })).result.content[0].text).toBe('slept 1 ms');
    expect(serve.answers.every((m) => m.jsonrpc === '2.0')).toBe(true);
    serve.child.stdin.end();
    expect((await serve.exit).code).toBe(0);
  });

  it('an uncaught exception is logged as fatal and starts a graceful shutdown: the call in flight is answered, exit code 2', async () => {
    const serve = await startHttpServe(['--tools', lifecycleTools], { cwd: tempDir('toolwright-serve-') });
    const inFlight = serve.call('sleep', { ms: 400 });
    await expect.poll(serve.stderr, { timeout: 10_000 }).toContain('sleep 400 started');
    await serve.call('throw_later');
    await expect
      .poll(() => logLine(serve.stderr(), /uncaught exception/), { timeout: 5_000 })
      .toMatchObject({ level: 60, correlationId: expect.stringMatching(UUID), err: { message: 'thrown from a timer' } });
    expect((await (await inFlight).json()).result.content[0].text).toBe('slept 400 ms');
    expect((await serve.exit).code).toBe(2);
  });
});
