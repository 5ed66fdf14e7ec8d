import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { builtCli, startConsoleProcess, type ConsoleProcess } from '../helpers/console.js';

/**
 * Issue 25: the console's collections API, as the page uses it, against the built console in a
 * temp project (its files land in <project>/.toolwright/collections/) connected to the built
 * `toolwright serve`. Hostile names and invalid calls are refused with 400 before anything is written.
 */
describe('the console collections API', () => {
  let console_: ConsoleProcess;
  let project: string;
  const dir = () => join(project, '.toolwright', 'collections');

  async function api(path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${console_.origin}/api/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-Console-Token': console_.token, Origin: console_.origin, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'tw-console-coll-'));
    writeFileSync(join(project, 'package.json'), '{"name":"p","private":true}\n');
    console_ = await startConsoleProcess(['--', process.execPath, builtCli, 'serve'], { cwd: project });
    await vi.waitFor(
      async () => {
        if ((await api('status')).body.connected !== true) throw new Error('the console is not connected yet');
      },
      { timeout: 20_000, interval: 100 },
    );
  }, 60_000);

  afterAll(async () => {
    await console_?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  it('saves calls (ids made from the label), lists them, runs them with the connected client and deletes one', async () => {
    const saved = await api('collections/save-call', {
      collection: 'smoke',
      call: { name: 'Two plus three', tool: 'calculate', arguments: { expression: '2+3' } },
    });
    expect(saved).toEqual({
      status: 200,
      body: { collection: 'smoke', call: { id: 'two-plus-three', name: 'Two plus three', tool: 'calculate', arguments: { expression: '2+3' } } },
    });
    await api('collections/save-call', {
      collection: 'smoke',
      call: { name: 'Two plus three', tool: 'calculate', arguments: { expression: '2+2' }, expect: { structuredContent: { result: 5 } } },
    });
    const file = JSON.parse(readFileSync(join(dir(), 'smoke.json'), 'utf8'));
    expect(file.calls.map((c: { id: string }) => c.id)).toEqual(['two-plus-three', 'two-plus-three-2']);

    const listed = await api('collections');
    expect(listed.body.collections).toEqual([
      expect.objectContaining({ name: 'smoke', calls: [expect.objectContaining({ id: 'two-plus-three' }), expect.anything()] }),
    ]);

    const run = await api('collections/run', { name: 'smoke' });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ name: 'smoke', passed: false, total: 2, failed: 1 });
    expect((run.body.calls as Array<{ passed: boolean; failures: string[] }>).map((c) => [c.passed, c.failures])).toEqual([
      [true, []],
      [false, ['$.structuredContent.result: expected 5, got 4']],
    ]);

    expect((await api('collections/delete-call', { collection: 'smoke', id: 'two-plus-three-2' })).status).toBe(200);
    expect((await api('collections/delete-call', { collection: 'smoke', id: 'two-plus-three-2' })).status).toBe(404);
    expect((await api('collections/read', { name: 'smoke' })).body.calls).toHaveLength(1);
    expect((await api('collections/delete', { name: 'smoke' })).status).toBe(200);
    expect(existsSync(join(dir(), 'smoke.json'))).toBe(false);
  });

  it('refuses hostile names with 400 and writes nothing outside the folder', async () => {
    for (const name of ['../escape', '..', '.hidden', 'a/b', 'a\\b', 'nul\u0000x', 'x'.repeat(65), '', ' ', 'C:evil']) {
      const answer = await api('collections/save-call', { collection: name, call: { tool: 'calculate', arguments: {} } });
      expect(answer.status, JSON.stringify(name)).toBe(400);
      expect(String((answer.body.error as { message: string }).message)).toMatch(/collection/);
    }
    for (const body of [{ name: '../../package' }, { name: ['x'] }, {}]) expect((await api('collections/read', body)).status).toBe(400);
    expect(existsSync(join(project, '.toolwright', 'escape.json'))).toBe(false);
    expect(readFileSync(join(project, 'package.json'), 'utf8')).toBe('{"name":"p","private":true}\n');
  });

  it('refuses an invalid call before writing, with what is wrong', async () => {
    const bad = await api('collections/save-call', { collection: 'strict', call: { tool: 'calculate', arguments: {}, expect: { contains: 1 } } });
    expect(bad.status).toBe(400);
    expect((bad.body.error as { message: string }).message).toContain('collection.calls[0].expect.contains: unexpected field');
    expect((await api('collections/save-call', { collection: 'strict', call: { arguments: {} } })).status).toBe(400);
    expect((await api('collections/save-call', { collection: 'strict', call: { tool: 'calculate', arguments: [1] } })).status).toBe(400);
    expect(existsSync(join(dir(), 'strict.json'))).toBe(false);
  });

  it('a broken or symlinked file is listed with its problem and refused, without an absolute path', async () => {
    mkdirSync(dir(), { recursive: true });
    writeFileSync(join(dir(), 'broken.json'), '{"calls": [{"id": "x"}]}');
    const outside = join(project, 'outside.json');
    writeFileSync(outside, JSON.stringify({ calls: [{ id: 'a', tool: 'calculate' }] }));
    symlinkSync(outside, join(dir(), 'linked.json'));
    const listed = (await api('collections')).body.collections as Array<{ name: string; error?: string }>;
    expect(listed.find((c) => c.name === 'broken')?.error).toContain('collection.calls[0].tool: required field is missing');
    const linked = await api('collections/run', { name: 'linked' });
    expect(linked.status).toBe(400);
    expect((linked.body.error as { message: string }).message).toBe('refusing to follow a symbolic link: linked.json');
    expect(JSON.stringify(listed)).not.toContain(project);
    expect((await api('collections/save-call', { collection: 'linked', call: { tool: 'calculate' } })).status).toBe(400);
    expect(readFileSync(outside, 'utf8')).toBe(JSON.stringify({ calls: [{ id: 'a', tool: 'calculate' }] }));
  });

  it('runs calls that may destroy data only once the page confirms them (issue 30), by the server’s tools/list', async () => {
    const calls = [
      { id: 'sum', tool: 'calculate', arguments: { expression: '1+1' } },
      { id: 'drop', name: 'drop it', tool: 'delete_file', arguments: { path: 'nothing-here.txt' } },
      { id: 'ghost', tool: 'no_such_tool' },
    ];
    mkdirSync(dir(), { recursive: true });
    writeFileSync(join(dir(), 'risky.json'), JSON.stringify({ calls }));
    // calculate is read-only; delete_file says destructiveHint: true; an unlisted tool says nothing, so it may destroy.
    expect((await api('collections/destructive-calls', { name: 'risky' })).body).toEqual({
      calls: [
        { id: 'drop', label: 'drop it', tool: 'delete_file', arguments: { path: 'nothing-here.txt' } },
        { id: 'ghost', label: 'ghost', tool: 'no_such_tool', arguments: {} },
      ],
    });
    const refused = await api('collections/run', { name: 'risky' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ message: 'risky has 2 calls that may change or destroy data: confirm to run' });

    writeFileSync(join(dir(), 'ghostly.json'), JSON.stringify({ calls: [calls[0], calls[2]] }));
    expect((await api('collections/run', { name: 'ghostly' })).status).toBe(409);
    const confirmed = await api('collections/run', { name: 'ghostly', confirmDestructive: true });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ total: 2, failed: 1 });
  });
});
