import fs from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wire } from '../../helpers/wire.js';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

const ELICIT = { elicitation: {} };
let ws: Workspace;

beforeEach(async () => {
  ws = await workspace({ fs: { deleteApprovalBytes: 100 } });
  await ws.write('small.txt', 'tiny');
  await ws.write('large.bin', Buffer.alloc(500));
  await ws.write('docs/a.md', 'aaaa');
  await ws.write('docs/sub/b.md', 'bb');
});

afterEach(() => ws.cleanup());

const exists = (rel: string) =>
  fs.access(ws.file(rel)).then(
    () => true,
    () => false,
  );

describe('delete_file, modern era', () => {
  it('deletes a small file without asking', async () => {
    const r = await ws.call('delete_file', { path: 'small.txt' });
    expect(r.isError).toBeUndefined();
    expect(textOf(r)).toBe('Deleted the file "small.txt" (4 bytes).');
    expect(await exists('small.txt')).toBe(false);
  });

  it('asks before deleting a directory, showing its relative path and size, and deletes on a yes', async () => {
    const first = await ws.call('delete_file', { path: 'docs', recursive: true }, { capabilities: ELICIT });
    expect(first.resultType).toBe('input_required');
    const [key, question] = Object.entries(first.inputRequests as Record<string, { method: string; params: { message: string; requestedSchema: unknown } }>)[0];
    expect(key).toMatch(/^confirm_delete_[0-9a-f]{16}$/);
    expect(question.method).toBe('elicitation/create');
    expect(question.params.message).toBe('Delete the directory "docs" and everything in it (2 files, 1 subdirectory, 6 bytes)? This cannot be undone.');
    expect(JSON.stringify(first)).not.toContain(ws.base);
    expect(await exists('docs/a.md')).toBe(true);

    const yes = await ws.call(
      'delete_file',
      { path: 'docs', recursive: true },
      {
        capabilities: ELICIT,
        params: { requestState: first.requestState, inputResponses: { [key]: { action: 'accept', content: { approve: true } } } },
      },
    );
    expect(yes.isError).toBeUndefined();
    expect(textOf(yes)).toMatch(/^Deleted the directory "docs"/);
    expect(await exists('docs')).toBe(false);
  });

  it.each([
    ['declines', { action: 'decline' }],
    ['cancels', { action: 'cancel' }],
    ['accepts without confirming', { action: 'accept', content: { approve: false } }],
  ])('keeps the directory when the user %s', async (_label, answer) => {
    const first = await ws.call('delete_file', { path: 'docs', recursive: true }, { capabilities: ELICIT });
    const key = Object.keys(first.inputRequests)[0];
    const r = await ws.call(
      'delete_file',
      { path: 'docs', recursive: true },
      {
        capabilities: ELICIT,
        params: { requestState: first.requestState, inputResponses: { [key]: answer } },
      },
    );
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe('The user did not confirm deleting "docs"; nothing was deleted. Do not retry unless the user asks for it.');
    expect(await exists('docs/sub/b.md')).toBe(true);
  });

  it.each([
    ['the field of another form', { confirm: true }, 'unknown field "confirm"'],
    ['no field at all', {}, 'no "approve" field'],
    ['a string for the boolean', { approve: 'yes' }, '"approve" is "yes", not true or false'],
  ])('refuses loudly, naming the expected field, an accepted answer with %s (nothing deleted)', async (_label, content, problem) => {
    const first = await ws.call('delete_file', { path: 'docs', recursive: true }, { capabilities: ELICIT });
    const key = Object.keys(first.inputRequests)[0];
    // The question asks with the same field as the generic approval: one name for one confirmation.
    expect(first.inputRequests[key].params.requestedSchema).toMatchObject({ properties: { approve: { type: 'boolean' } }, required: ['approve'] });
    const r = await ws.call(
      'delete_file',
      { path: 'docs', recursive: true },
      { capabilities: ELICIT, params: { requestState: first.requestState, inputResponses: { [key]: { action: 'accept', content } } } },
    );
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      `The answer to the confirmation for deleting "docs" was not understood (${problem}); the form has one field, "approve", a boolean: true deletes, false does not. Nothing was deleted.`,
    );
    expect(await exists('docs/sub/b.md')).toBe(true);
  });

  it('asks for a file over the size threshold', async () => {
    const first = await ws.call('delete_file', { path: 'large.bin' }, { capabilities: ELICIT });
    expect(first.resultType).toBe('input_required');
    expect(Object.values(first.inputRequests as Record<string, { params: { message: string } }>)[0].params.message).toBe(
      'Delete the file "large.bin" (500 bytes)? This cannot be undone.',
    );
    expect(await exists('large.bin')).toBe(true);
  });

  it('refuses, deleting nothing, when the client cannot ask the user', async () => {
    for (const args of [{ path: 'docs', recursive: true }, { path: 'large.bin' }]) {
      const r = await ws.call('delete_file', args);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/needs the user's confirmation, but this client cannot ask the user/);
    }
    expect(await exists('docs/a.md')).toBe(true);
    expect(await exists('large.bin')).toBe(true);
  });

  it('asks again when the directory changed after the question (a yes covers only what was shown)', async () => {
    const first = await ws.call('delete_file', { path: 'docs', recursive: true }, { capabilities: ELICIT });
    const key = Object.keys(first.inputRequests)[0];
    await ws.write('docs/new-and-important.md', 'keep me');
    const r = await ws.call(
      'delete_file',
      { path: 'docs', recursive: true },
      {
        capabilities: ELICIT,
        params: { requestState: first.requestState, inputResponses: { [key]: { action: 'accept', content: { approve: true } } } },
      },
    );
    expect(r.resultType).toBe('input_required');
    expect(Object.keys(r.inputRequests)[0]).not.toBe(key);
    expect(await exists('docs/new-and-important.md')).toBe(true);
  });

  it('needs recursive for a directory, and refuses trees holding protected names', async () => {
    expect(textOf(await ws.call('delete_file', { path: 'docs' }, { capabilities: ELICIT }))).toMatch(/is a directory; pass recursive: true/);
    await ws.write('docs/.env', 'TOKEN=1');
    const r = await ws.call('delete_file', { path: 'docs', recursive: true }, { capabilities: ELICIT });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/contains protected files/);
    expect(await exists('docs/.env')).toBe(true);
  });

  it('refuses, before asking, a tree deeper than its removal may hold directories open for', async () => {
    await fs.mkdir(ws.file(`deep/${Array.from({ length: 130 }, () => 'd').join('/')}`), { recursive: true });
    const r = await ws.call('delete_file', { path: 'deep', recursive: true }, { capabilities: ELICIT });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe('"deep" is nested more than 128 levels deep; delete its deepest directories first.');
    expect(await exists('deep/d/d')).toBe(true);
  });

  it('deletes a tree holding links, unlinking them and never what they point to', async () => {
    await fs.symlink(ws.outside, ws.file('docs/sub/to-outside'));
    await fs.symlink('../a.md', ws.file('docs/sub/to-inside'));
    const first = await ws.call('delete_file', { path: 'docs', recursive: true }, { capabilities: ELICIT });
    const key = Object.keys(first.inputRequests)[0];
    const yes = await ws.call(
      'delete_file',
      { path: 'docs', recursive: true },
      {
        capabilities: ELICIT,
        params: { requestState: first.requestState, inputResponses: { [key]: { action: 'accept', content: { approve: true } } } },
      },
    );
    expect(textOf(yes)).toMatch(/^Deleted the directory "docs"/);
    expect(await exists('docs')).toBe(false);
    expect(await fs.readdir(ws.outside)).toEqual(['secret.txt']);
  });

  it('refuses a missing path and the root', async () => {
    expect(textOf(await ws.call('delete_file', { path: 'nope.txt' }))).toMatch(/"nope.txt" does not exist/);
    expect(textOf(await ws.call('delete_file', { path: '.', recursive: true }))).toMatch(/is a root directory/);
  });

  it('is declared destructive, and asks through its own question rather than the generic approval', async () => {
    const list = await ws.w.modern('tools/list');
    const tool = list.result.tools.find((t: { name: string }) => t.name === 'delete_file');
    expect(tool.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  });
});

describe('delete_file, legacy era', () => {
  async function legacy(capabilities: Record<string, unknown>) {
    const w = wire(ws.server);
    await w.request('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } });
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return w;
  }

  async function answered(answer: Record<string, unknown>) {
    const w = await legacy(ELICIT);
    const pending = w.request('tools/call', { name: 'delete_file', arguments: { path: 'docs', recursive: true } });
    let ask: Record<string, any> | undefined;
    for (let i = 0; i < 100 && !ask; i++) {
      await new Promise((r) => setTimeout(r, 10));
      ask = w.written.find((m) => m.method === 'elicitation/create');
    }
    expect(ask?.params.message).toMatch(/^Delete the directory "docs" and everything in it/);
    w.send({ jsonrpc: '2.0', id: ask!.id, result: answer });
    return (await pending).result;
  }

  it('sends elicitation/create and deletes after the user confirms', async () => {
    const r = await answered({ action: 'accept', content: { approve: true } });
    expect(textOf(r)).toMatch(/^Deleted the directory "docs"/);
    expect(await exists('docs')).toBe(false);
  });

  it('keeps the directory when the user declines', async () => {
    const r = await answered({ action: 'decline' });
    expect(r.isError).toBe(true);
    expect(await exists('docs')).toBe(true);
  });

  it('refuses when the client did not declare elicitation', async () => {
    const w = await legacy({});
    const r = (await w.request('tools/call', { name: 'delete_file', arguments: { path: 'docs', recursive: true } })).result;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/cannot ask the user/);
    expect(await exists('docs')).toBe(true);
  });
});
