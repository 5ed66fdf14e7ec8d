import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { queryAuditLog } from '../../../src/audit/query.js';
import { openDatabase } from '../../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../../src/audit/sqlite-sink.js';
import { hashApiKey } from '../../../src/policy/auth/api-keys.js';
import { definePrompt } from '../../../src/server/primitives/prompts/index.js';
import { defineResource, defineResourceTemplate } from '../../../src/server/primitives/resources/index.js';
import { ToolServer } from '../../../src/server/server.js';
import { startHttp } from '../../helpers/http.js';
import { tempDir } from '../../helpers/temp.js';
import { memoryLogger } from '../../helpers/wire.js';

/**
 * prompts/get, resources/read, completion/complete and resources/subscribe
 * leave audit records as tool calls do (real HTTP, a real SQLite trail):
 * principal, method and target, redacted arguments, status, duration,
 * correlation id. Old trails gain the method column, their rows read as tools/call.
 */
let http: Awaited<ReturnType<typeof startHttp>> | undefined;
let server: ToolServer | undefined;
afterEach(async () => {
  await http?.close();
  server?.close();
  http = server = undefined;
});

const key = 'alice-key-'.padEnd(40, 'x');
const authorization = `Bearer ${key}`;

async function setup(file: string) {
  const logger = memoryLogger();
  server = new ToolServer({
    logger: logger.logger,
    audit: new SqliteAuditSink(file),
    resources: [
      defineResource({ uri: 'docs://a', name: 'a', read: () => 'A' }),
      defineResource({ uri: 'docs://locked', name: 'locked', scopes: ['admin'], read: () => 'L' }),
    ],
    resourceTemplates: [
      defineResourceTemplate({ uriTemplate: 'db://{table}', name: 'table', complete: { table: () => ['users'] }, read: (_u, v) => `table ${v.table}` }),
    ],
    prompts: [
      definePrompt({ name: 'login', arguments: [{ name: 'user' }, { name: 'password' }], get: ({ user }) => `hello ${user}` }),
      definePrompt({
        name: 'broken',
        get: () => {
          throw new Error('/secret/path exploded');
        },
      }),
    ],
  });
  http = await startHttp(server, { auth: { apiKeys: [{ hash: hashApiKey(key), principal: 'alice', scopes: ['docs'] }] } });
  return { logs: logger };
}

describe('audit records of requests that are not tool calls', () => {
  it('records prompts/get, resources/read and completion/complete with principal, target, redacted arguments and outcome', async () => {
    const file = join(tempDir('toolwright-audit-requests-'), 'audit.db');
    await setup(file);
    const ask = async (method: string, params: Record<string, unknown>) => (await http!.modern(method, params, { authorization })).json();
    await ask('prompts/get', { name: 'login', arguments: { user: 'ada', password: 'hunter2' } });
    await ask('resources/read', { uri: 'db://orders' });
    await ask('resources/read', { uri: 'docs://nothing' });
    expect((await http!.modern('resources/read', { uri: 'docs://locked' }, { authorization })).status).toBe(403);
    await ask('completion/complete', { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: 'u' } });
    const broken = await ask('prompts/get', { name: 'broken' });
    const correlationId = /correlation id ([0-9a-f-]{36})/.exec(broken.error.message)![1];
    await server!.drain(1000);
    const records = queryAuditLog(file);
    expect(records.map((r) => [r.method, r.tool, r.status, r.errorCode, r.principal])).toEqual([
      ['prompts/get', 'login', 'ok', null, 'alice'],
      ['resources/read', 'db://orders', 'ok', null, 'alice'],
      ['resources/read', 'docs://nothing', 'protocol_error', -32602, 'alice'],
      ['resources/read', 'docs://locked', 'refused', -32600, 'alice'],
      ['completion/complete', 'resource db://{table}', 'ok', null, 'alice'],
      ['prompts/get', 'broken', 'internal_error', -32603, 'alice'],
    ]);
    expect(JSON.parse(records[0].argumentsJson)).toEqual({ user: 'ada', password: '[REDACTED]' });
    expect(JSON.parse(records[1].argumentsJson)).toEqual({ table: 'orders' });
    expect(JSON.parse(records[4].argumentsJson)).toEqual({ argument: { name: 'table', value: 'u' } });
    expect(records[0]).toMatchObject({ era: 'modern', clientName: 'test', isError: false });
    expect(records[5].correlationId).toBe(correlationId);
    expect(records.every((r) => r.durationMs >= 0)).toBe(true);
  });

  it('records a legacy resources/subscribe', async () => {
    const file = join(tempDir('toolwright-audit-requests-'), 'audit.db');
    await setup(file);
    const init = await http!.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } },
      { authorization },
    );
    const headers = { authorization, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await http!.post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'docs://a' } }, headers);
    await server!.drain(1000);
    expect(queryAuditLog(file).map((r) => [r.method, r.tool, r.era, r.status, r.clientName])).toEqual([
      ['resources/subscribe', 'docs://a', 'legacy', 'ok', 'old'],
    ]);
  });

  it('adds the method column to a trail written before it, whose rows read as tools/call', async () => {
    const file = join(tempDir('toolwright-audit-requests-'), 'audit.db');
    const db = openDatabase(file);
    db.exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY, time TEXT NOT NULL, era TEXT NOT NULL, protocol_version TEXT NOT NULL, principal TEXT,
      tool TEXT NOT NULL, arguments TEXT NOT NULL, status TEXT NOT NULL, is_error INTEGER NOT NULL, duration_ms REAL NOT NULL,
      correlation_id TEXT, request_id, client_name TEXT, error_code INTEGER)`);
    db.prepare(
      "INSERT INTO audit (time, era, protocol_version, principal, tool, arguments, status, is_error, duration_ms) VALUES ('2026-01-01T00:00:00.000Z', 'modern', '2026-07-28', 'bob', 'old_tool', '{}', 'ok', 0, 1)",
    ).run();
    db.pragma('user_version = 1');
    db.close();
    await setup(file);
    await http!.modern('resources/read', { uri: 'docs://a' }, { authorization });
    await server!.drain(1000);
    const records = queryAuditLog(file);
    expect(records.map((r) => [r.method ?? 'tools/call', r.tool])).toEqual([
      ['tools/call', 'old_tool'],
      ['resources/read', 'docs://a'],
    ]);
    expect(records[0]).not.toHaveProperty('method');
  });
});
