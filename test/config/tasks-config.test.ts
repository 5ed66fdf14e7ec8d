import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/validate.js';
import { SqliteTaskStore } from '../../src/tasks/sqlite-store.js';
import { tempDir } from '../helpers/temp.js';
import { wire } from '../helpers/wire.js';

const EXT = 'io.modelcontextprotocol/tasks';
const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } };

function write(config: unknown): string {
  const folder = tempDir('toolwright-tasks-config-');
  const file = join(folder, 'toolwright.config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

function serve(config: unknown) {
  const file = write(config);
  const loaded = loadConfig(file);
  const { server } = buildServer(loaded.config, loaded.baseDir, '1.0.0', loaded.file);
  return { server, baseDir: loaded.baseDir };
}

describe('server.tasks in the config', () => {
  it('per-tool modes, TTL and polling interval reach the server; the store is relative to the config file', async () => {
    const { server, baseDir } = serve({
      server: { audit: false, tasks: { store: 'state/tasks.db', ttlMs: 60_000, pollIntervalMs: 25, tools: { calculate: 'always' } } },
      toolsets: { math: {}, time: {} },
    });
    const w = wire(server);
    const created = (await w.modern('tools/call', { name: 'calculate', arguments: { expression: '6*7' } }, withTasks)).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 25 });
    expect(existsSync(join(baseDir, 'state', 'tasks.db'))).toBe(true);
    await expect
      .poll(async () => (await w.modern('tasks/get', { taskId: created.taskId }, withTasks)).result.status, { timeout: 5_000, interval: 20 })
      .toBe('completed');
    const done = (await w.modern('tasks/get', { taskId: created.taskId }, withTasks)).result;
    expect(done.result.content[0].text).toContain('42');
    // A tool the operator named nothing for keeps its own mode (never): answered directly.
    const direct = (await w.modern('tools/call', { name: 'get_current_time', arguments: {} }, withTasks)).result;
    expect(direct.resultType).toBe('complete');
    server.close();
  });

  it('defaultMode applies to tools that set none; a required mode refuses clients without the extension', async () => {
    const { server } = serve({ server: { audit: false, tasks: { store: 'tasks.db', defaultMode: 'required' } }, toolsets: { math: {} } });
    const w = wire(server);
    const refused = await w.modern('tools/call', { name: 'calculate', arguments: { expression: '1+1' } });
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    const created = (await w.modern('tools/call', { name: 'calculate', arguments: { expression: '1+1' } }, withTasks)).result;
    expect(created.resultType).toBe('task');
    await expect
      .poll(async () => (await w.modern('tasks/get', { taskId: created.taskId }, withTasks)).result.status, { timeout: 5_000, interval: 20 })
      .toBe('completed');
    server.close();
  });

  it('leaseMs reaches the task store (the claim written with each unfinished task)', async () => {
    const { server, baseDir } = serve({ server: { audit: false, tasks: { store: 'tasks.db', leaseMs: 120_000 } }, toolsets: { math: {} } });
    await server.taskStore!.create({
      taskId: 't',
      owner: '',
      tool: 'x',
      status: 'working',
      createdAt: Date.now(),
      lastUpdatedAt: Date.now(),
      ttlMs: null,
      pollIntervalMs: 10,
    });
    // Another instance on the same file: 90 s on, a 30 s lease (the default) would have run out, 120 s has not.
    const other = new SqliteTaskStore(join(baseDir, 'tasks.db'));
    const gone = { code: -32603, message: 'gone' };
    expect(await other.failUnfinished(gone, Date.now() + 90_000)).toBe(0);
    expect(await other.failUnfinished(gone, Date.now() + 121_000)).toBe(1);
    other.close();
    server.close();
  });

  it('tasks: false serves no tasks and advertises no extension', async () => {
    const { server } = serve({ server: { audit: false, tasks: false }, toolsets: { math: {} } });
    const w = wire(server);
    const discover = (await w.modern('server/discover')).result;
    expect(discover.capabilities.extensions?.[EXT]).toBeUndefined();
    const got = await w.modern('tasks/get', { taskId: 'x' }, withTasks);
    expect(got.error.code).toBe(-32601);
  });

  it('refuses bad modes, unknown keys and out-of-range numbers, naming the key', () => {
    const bad = (tasks: unknown) => () => loadConfig(write({ server: { tasks } }));
    expect(bad({ tools: { calculate: 'sometimes' } })).toThrow(ConfigError);
    expect(bad({ tools: { calculate: { afterMs: -1 } } })).toThrow(ConfigError);
    expect(bad({ tools: { calculate: { afterMs: 10, later: true } } })).toThrow(ConfigError);
    expect(bad({ defaultMode: { required: true } })).toThrow(ConfigError);
    expect(bad({ pollIntervalMs: 0 })).toThrow(ConfigError);
    expect(bad({ ttlMs: 1.5 })).toThrow(ConfigError);
    expect(bad({ leaseMs: 500 })).toThrow(/leaseMs/);
    expect(bad({ leaseMs: 3_600_001 })).toThrow(/leaseMs/);
    expect(bad(true)).toThrow(ConfigError);
    expect(bad({ storage: 'x.db' })).toThrow(/server\.tasks.*storage|storage.*did you mean "store"/s);
    expect(loadConfig(write({ server: { tasks: { ttlMs: null, tools: { a: { afterMs: 2000, required: true } } } } })).config.server?.tasks).toEqual({
      ttlMs: null,
      tools: { a: { afterMs: 2000, required: true } },
    });
  });
});
