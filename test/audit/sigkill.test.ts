import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlAuditReader } from '../../src/audit/jsonl-reader.js';
import { queryAuditLog } from '../../src/audit/query.js';
import type { StoredAuditRecord } from '../../src/audit/reader.js';
import { killAndReap } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';
import { modernMeta } from '../helpers/wire.js';
import { tsProgram } from '../helpers/ts-program.js';

const fixture = fileURLToPath(new URL('../fixtures/audit-stdio-server.ts', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;
// Runs before the test's temp dir is removed, so the server is gone by then.
afterEach(() => killAndReap(child));

/**
 * Starts the fixture; `onReply` runs synchronously for each response line as
 * it arrives, so a test can SIGKILL the server the moment it has answered.
 */
function start(onReply: (msg: Record<string, any>, answered: Array<Record<string, any>>) => void, trailOnly = false) {
  const dir = tempDir('toolwright-audit-kill-');
  const files = { db: join(dir, 'audit.db'), jsonl: join(dir, 'audit.jsonl') };
  const sinks = trailOnly ? { AUDIT_TRAIL: files.jsonl } : { AUDIT_DB: files.db, AUDIT_JSONL: files.jsonl };
  child = spawn(process.execPath, tsProgram(fixture), {
    env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'silent', ...sinks },
  });
  const answered: Array<Record<string, any>> = [];
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const msg = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      answered.push(msg);
      onReply(msg, answered);
    }
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.once('exit', (_code, signal) => resolve(signal)));
  const send = (msg: unknown) => child!.stdin.write(`${JSON.stringify(msg)}\n`);
  return { files, answered, exited, send };
}

const call = (id: number | string, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, _meta: modernMeta() },
});

describe('audit durability', () => {
  it('a SIGKILL right after the answer keeps the call in SQLite and JSON lines, with its secrets redacted', async () => {
    const { files, exited, send } = start(() => child!.kill('SIGKILL'));
    send(call(1, 'deploy', { env: 'prod', token: 'ghp_supersecret', pin: '4242' }));
    expect(await exited).toBe('SIGKILL');

    const records = queryAuditLog(files.db);
    expect(records).toEqual([expect.objectContaining({ tool: 'deploy', status: 'ok', isError: false, requestId: 1, era: 'modern', clientName: 'test' })]);
    expect(JSON.parse(records[0].argumentsJson)).toEqual({ env: 'prod', token: '[REDACTED]', pin: '[REDACTED]' });
    const lines = readFileSync(files.jsonl, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ tool: 'deploy', requestId: 1, arguments: { env: 'prod', token: '[REDACTED]', pin: '[REDACTED]' } })]);
    expect(readFileSync(files.db).toString('latin1') + readFileSync(`${files.db}-wal`).toString('latin1')).not.toContain('ghp_supersecret');
  });

  it('killed mid-burst, every call that was answered has its record (protocol errors included)', async () => {
    const total = 200;
    const { files, answered, exited, send } = start((_msg, all) => {
      if (all.length === 60) child!.kill('SIGKILL');
    });
    for (let i = 0; i < total; i++) send(i % 10 === 9 ? call(i, 'no_such_tool', {}) : call(i, 'deploy', { env: `e${i}` }));
    expect(await exited).toBe('SIGKILL');

    const answeredIds = answered.map((m) => m.id);
    expect(answeredIds.length).toBeGreaterThanOrEqual(60);
    const recorded = new Set(queryAuditLog(files.db, { limit: 1_000 }).map((r) => r.requestId));
    expect(answeredIds.filter((id) => !recorded.has(id))).toEqual([]);
    const inJsonl = new Set(
      readFileSync(files.jsonl, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).requestId),
    );
    expect(answeredIds.filter((id) => !inJsonl.has(id))).toEqual([]);
    // Protocol errors were answered and recorded too.
    expect(answered.some((m) => m.error?.code === -32602)).toBe(true);
    expect(queryAuditLog(files.db, { errorsOnly: true, limit: 1_000 }).every((r) => r.status === 'protocol_error' && r.tool === 'no_such_tool')).toBe(true);
  });

  it('the default JSON-lines trail (group commit): killed at its first answer mid-burst, every call that was answered is in it, read back by its reader', async () => {
    const total = 200;
    const { files, answered, exited, send } = start((_msg, all) => {
      // At the first answer: the rest of the burst is still being served and recorded.
      if (all.length === 1) child!.kill('SIGKILL');
    }, true);
    for (let i = 0; i < total; i++) send(call(i, 'deploy', { env: `e${i}`, token: 'ghp_supersecret' }));
    expect(await exited).toBe('SIGKILL');

    const answeredIds = answered.map((m) => m.id);
    expect(answeredIds.length).toBeGreaterThanOrEqual(1);
    const records: StoredAuditRecord[] = [];
    for await (const record of new JsonlAuditReader(files.jsonl).query({ limit: false })) records.push(record);
    const recorded = new Set(records.map((r) => r.requestId));
    expect(answeredIds.filter((id) => !recorded.has(id))).toEqual([]);
    expect(JSON.parse(records[0]!.argumentsJson)).toEqual({ env: 'e0', token: '[REDACTED]' });
    expect(readFileSync(files.jsonl, 'utf8')).not.toContain('ghp_supersecret');
  });
});
