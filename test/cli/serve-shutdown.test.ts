import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { readSse } from '../helpers/http.js';
import { lifecycleTools, startHttpServe, startStdioServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';
import { MODERN, modernMeta } from '../helpers/wire.js';

/** A served process with its audit trail in a temp dir of its own. */
function auditedDir() {
  const auditDir = tempDir('toolwright-shutdown-audit-');
  return { cwd: tempDir('toolwright-shutdown-'), env: { TOOLWRIGHT_AUDIT_DIR: auditDir }, db: join(auditDir, '.toolwright', 'audit.db') };
}

function auditRows(db: string): Array<{ tool: string; status: string; is_error: number; arguments: string }> {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare('SELECT tool, status, is_error, arguments FROM audit ORDER BY id').all() as never;
  } finally {
    conn.close();
  }
}

/** Resolves once the fixture's sleep tool says on stderr that a call of `ms` has started. */
const started = (stderr: () => string, ms: number) => expect.poll(stderr, { timeout: 10_000 }).toContain(`sleep ${ms} started`);

describe('toolwright serve --http shuts down gracefully', () => {
  it('SIGTERM during a call: the call is answered, its record is in the audit DB, listen streams end, exit 0', async () => {
    const where = auditedDir();
    const serve = await startHttpServe(['--tools', lifecycleTools], where);
    const listen = await fetch(serve.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'sub',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
      }),
    });
    const inFlight = serve.call('sleep', { ms: 500 });
    await started(serve.stderr, 500);
    serve.child.kill('SIGTERM');
    const answer = await (await inFlight).json();
    expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'slept 500 ms' }] });
    expect(answer.result.isError).toBeUndefined();
    const streamed = await readSse(listen, (messages) => messages.some((m) => m.id === 'sub'));
    expect(streamed.at(-1)).toMatchObject({ id: 'sub', result: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' } } });
    expect(await serve.exit).toEqual({ code: 0, signal: null });
    expect(serve.stderr()).toMatch(/SIGTERM: shutting down; 1 call\(s\) in flight have 10000 ms to finish/);
    // One record each (the audit rule): the call, and the listen stream the shutdown ended.
    const rows = auditRows(where.db).sort((a, b) => a.tool.localeCompare(b.tool));
    expect(rows).toEqual([
      expect.objectContaining({ tool: 'sleep', status: 'ok', is_error: 0 }),
      expect.objectContaining({ tool: 'toolsListChanged', status: 'ok', is_error: 0 }),
    ]);
  });

  it('a call longer than --shutdown-grace is stopped and answered with an error (recorded), exit 0', async () => {
    const where = auditedDir();
    const serve = await startHttpServe(['--tools', lifecycleTools, '--shutdown-grace', '300'], where);
    const inFlight = serve.call('sleep', { ms: 60_000 });
    await started(serve.stderr, 60_000);
    serve.child.kill('SIGTERM');
    const answer = await (await inFlight).json();
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0].text).toMatch(/^Tool sleep was stopped because the server is shutting down/);
    expect(await serve.exit).toEqual({ code: 0, signal: null });
    expect(auditRows(where.db)).toEqual([expect.objectContaining({ tool: 'sleep', status: 'cancelled', is_error: 1 })]);
    // The CLI's own sentences, one format: no JSON log line among them (the tool's own line aside).
    const lines = serve
      .stderr()
      .trim()
      .split('\n')
      .filter((line) => line !== 'sleep 60000 started');
    expect(lines.every((line) => line.startsWith('toolwright: '))).toBe(true);
    expect(lines).toContain('toolwright: 1 call(s) still running after the 300 ms grace: stopping them');
  });

  it('a second signal exits at once (143 for SIGTERM), without waiting for the call', async () => {
    const serve = await startHttpServe(['--tools', lifecycleTools], auditedDir());
    const inFlight = serve.call('sleep', { ms: 60_000 }).catch((err: Error) => err);
    await started(serve.stderr, 60_000);
    serve.child.kill('SIGTERM');
    await expect.poll(serve.stderr, { timeout: 5_000 }).toMatch(/shutting down/);
    serve.child.kill('SIGTERM');
    expect(await serve.exit).toEqual({ code: 143, signal: null });
    expect(serve.stderr()).toMatch(/SIGTERM during shutdown: exiting now/);
    expect(await inFlight).toBeInstanceOf(Error); // the connection was cut, unanswered
  });
});

describe('toolwright serve --stdio shuts down gracefully', () => {
  it('SIGTERM during a call: stops reading, the call is answered on stdout, its record is in the audit DB, exit 0', async () => {
    const where = auditedDir();
    const serve = startStdioServe(['--tools', lifecycleTools], where);
    expect((await serve.call('sleep', { ms: 1 })).result.content[0].text).toBe('slept 1 ms'); // up and serving
    const inFlight = serve.call('sleep', { ms: 500 });
    await started(serve.stderr, 500);
    serve.child.kill('SIGTERM');
    expect((await inFlight).result.content[0].text).toBe('slept 500 ms');
    expect(await serve.exit).toEqual({ code: 0, signal: null });
    expect(auditRows(where.db).map((r) => [r.tool, r.status])).toEqual([
      ['sleep', 'ok'],
      ['sleep', 'ok'],
    ]);
  });

  it('a call longer than the grace is stopped and answered with an error, exit 0', async () => {
    const where = auditedDir();
    const serve = startStdioServe(['--tools', lifecycleTools, '--shutdown-grace', '200'], where);
    expect((await serve.call('sleep', { ms: 1 })).result.content[0].text).toBe('slept 1 ms');
    const inFlight = serve.call('sleep', { ms: 60_000 });
    await started(serve.stderr, 60_000);
    serve.child.kill('SIGINT');
    const answer = await inFlight;
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0].text).toMatch(/was stopped because the server is shutting down/);
    expect(await serve.exit).toEqual({ code: 0, signal: null });
    expect(auditRows(where.db).map((r) => [r.status, r.is_error])).toEqual([
      ['ok', 0],
      ['cancelled', 1],
    ]);
  });

  it('a second signal exits at once (130 for SIGINT)', async () => {
    const serve = startStdioServe(['--tools', lifecycleTools], auditedDir());
    expect((await serve.call('sleep', { ms: 1 })).result.content[0].text).toBe('slept 1 ms');
    void serve.call('sleep', { ms: 60_000 }).catch(() => undefined);
    await started(serve.stderr, 60_000);
    serve.child.kill('SIGINT');
    await expect.poll(serve.stderr, { timeout: 5_000 }).toMatch(/shutting down/);
    serve.child.kill('SIGINT');
    expect(await serve.exit).toEqual({ code: 130, signal: null });
  });

  it('rejects a --shutdown-grace that is not a number of milliseconds (exit 1)', async () => {
    let stderr = '';
    const code = await runCli(['serve', '--stdio', '--shutdown-grace', '10s'], { stdout: () => {}, stderr: (t) => void (stderr += t) });
    expect([code, stderr]).toEqual([1, 'toolwright: --shutdown-grace must be a whole number of milliseconds (0 to 999999999), got "10s"\n']);
  });
});
