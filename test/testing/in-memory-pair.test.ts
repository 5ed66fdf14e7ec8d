import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DefaultAuditSink } from '../../src/audit/default-sink.js';
import { queryAuditLog } from '../../src/audit/query.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair } from '../../src/testing.js';
import { tempDir } from '../helpers/temp.js';

const echo = {
  name: 'echo',
  description: 'Echoes.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  handler: ({ text }: { text?: string }) => text ?? '',
};

/** Runs `body` in `dir` as the working directory, with no $TOOLWRIGHT_AUDIT_DIR (a user's test run). */
async function inDirectory(dir: string, body: () => Promise<void>): Promise<void> {
  const saved = { cwd: process.cwd(), auditDir: process.env.TOOLWRIGHT_AUDIT_DIR };
  delete process.env.TOOLWRIGHT_AUDIT_DIR;
  process.chdir(dir);
  try {
    await body();
  } finally {
    process.chdir(saved.cwd);
    if (saved.auditDir !== undefined) process.env.TOOLWRIGHT_AUDIT_DIR = saved.auditDir;
  }
}

describe('createInMemoryPair', () => {
  it('a server with the default audit trail keeps its records in memory: nothing is written into the working directory', async () => {
    const dir = tempDir('tw-pair-');
    await inDirectory(dir, async () => {
      const server = new ToolServer({ tools: [echo] });
      const pair = await createInMemoryPair(server);
      expect((await pair.client.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);
      await pair.close();
      server.close();
      expect(readdirSync(dir)).toEqual([]);
      const memory = (server.audit as DefaultAuditSink).keepInMemory();
      expect(memory?.records.map((r) => [r.tool, r.status])).toEqual([['echo', 'ok']]);
    });
  });

  it('an audit sink the test chose is kept, and so is a default trail that already holds records', async () => {
    const dir = tempDir('tw-pair-');
    const chosen = new ToolServer({ tools: [echo], audit: new SqliteAuditSink(join(dir, 'trail.db')) });
    const used = new ToolServer({ tools: [echo], audit: new DefaultAuditSink(dir) });
    used.audit!.probe!(); // opened before the pair: its records are not split between two places
    for (const server of [chosen, used]) {
      const pair = await createInMemoryPair(server);
      await pair.client.callTool('echo', { text: 'hi' });
      await pair.close();
      server.close();
    }
    expect(queryAuditLog(join(dir, 'trail.db')).map((r) => r.tool)).toEqual(['echo']);
    expect(queryAuditLog(join(dir, '.toolwright', 'audit.db')).map((r) => r.tool)).toEqual(['echo']);
  });
});
