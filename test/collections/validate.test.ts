import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { deleteCall, readCollection, saveCall } from '../../src/collections/store.js';
import { CollectionFileError, validateCollection } from '../../src/collections/validate.js';

function collectionsDir(): string {
  const dir = join(tempDir('tw-coll-'), 'collections');
  mkdirSync(dir);
  return dir;
}

async function problemsOf(dir: string, name: string): Promise<CollectionFileError> {
  const error = await readCollection(dir, name).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CollectionFileError);
  return error as CollectionFileError;
}

describe('collection files are checked against the published schema on read', () => {
  it('names the file, the call (number and id) and the key of each problem', async () => {
    const dir = collectionsDir();
    const broken = {
      calls: [
        { id: 'ok', tool: 'echo', arguments: { text: 'hi' } },
        { id: 'add', tool: 'calculate', arguments: [1, 2], expect: { notError: false, strucuredContent: {} } },
        { id: 'no-tool' },
      ],
    };
    writeFileSync(join(dir, 'smoke.json'), JSON.stringify(broken));
    const error = await problemsOf(dir, 'smoke');
    expect(error.message).toMatch(/^smoke\.json is not a valid collection:/);
    expect(error.problems).toEqual(
      expect.arrayContaining([
        'call 2 (id "add"): collection.calls[1].arguments: expected object',
        'call 2 (id "add"): collection.calls[1].expect.notError: expected true',
        'call 2 (id "add"): collection.calls[1].expect.strucuredContent: unexpected field (not allowed by the schema)',
        'call 3 (id "no-tool"): collection.calls[2].tool: required field is missing',
      ]),
    );
    expect(error.message).not.toContain(dir);
  });

  it('refuses a file that is not JSON, has no calls, or repeats an id', async () => {
    const dir = collectionsDir();
    writeFileSync(join(dir, 'text.json'), 'calls: []');
    expect((await problemsOf(dir, 'text')).problems[0]).toMatch(/^not valid JSON: /);
    writeFileSync(join(dir, 'empty.json'), '{"name":"empty"}');
    expect((await problemsOf(dir, 'empty')).problems).toEqual(['collection.calls: required field is missing']);
    writeFileSync(
      join(dir, 'twice.json'),
      JSON.stringify({
        calls: [
          { id: 'a', tool: 't' },
          { id: 'a', tool: 'u' },
        ],
      }),
    );
    expect((await problemsOf(dir, 'twice')).problems[0]).toMatch(/^call 2: collection\.calls\[1\]\.id: "a" is used by an earlier call/);
  });

  it('takes the name from the file name and defaults arguments to {}', async () => {
    const dir = collectionsDir();
    writeFileSync(join(dir, 'real.json'), JSON.stringify({ name: 'other', calls: [{ id: 'a', tool: 't' }] }));
    expect(await readCollection(dir, 'real')).toEqual({ name: 'real', calls: [{ id: 'a', tool: 't', arguments: {} }] });
  });

  it('refuses to read a collection file that is a symbolic link, even to a valid collection', async () => {
    const dir = collectionsDir();
    const outside = join(dir, '..', 'outside.json');
    writeFileSync(outside, JSON.stringify({ calls: [{ id: 'a', tool: 't' }] }));
    symlinkSync(outside, join(dir, 'linked.json'));
    await expect(readCollection(dir, 'linked')).rejects.toThrow('refusing to follow a symbolic link: linked.json');
    // saving reads the collection first, so it is refused too
    await expect(saveCall(dir, 'linked', { id: 'b', tool: 'u' })).rejects.toThrow(/symbolic link/);
  });

  it('refuses a FIFO without hanging', async () => {
    const dir = collectionsDir();
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(dir, 'pipe.json')]);
    await expect(readCollection(dir, 'pipe')).rejects.toThrow('pipe.json is not a regular file');
  });

  it('deleteCall removes one call by id and says whether it found it', async () => {
    const dir = collectionsDir();
    await saveCall(dir, 'c', { id: 'a', tool: 't' });
    await saveCall(dir, 'c', { id: 'b', tool: 't', expect: { isError: true } });
    expect(await deleteCall(dir, 'c', 'a')).toBe(true);
    expect(await deleteCall(dir, 'c', 'zzz')).toBe(false);
    expect((await readCollection(dir, 'c')).calls).toEqual([{ id: 'b', tool: 't', arguments: {}, expect: { isError: true } }]);
  });

  it('refuses to save an invalid call (nothing is written)', async () => {
    const dir = collectionsDir();
    await expect(saveCall(dir, 'c', { id: '', tool: 't' })).rejects.toThrow(/collection\.calls\[0\]\.id/);
    await expect(readCollection(dir, 'c')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('the documented collection', () => {
  it('the example file in docs/cli.md passes the published schema', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');
    const example = /```json\n(\{\n {2}"\$schema": "https:\/\/toolwright\.dev\/schema\/toolwright\.collection\.schema\.json"[\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    expect(() => validateCollection(JSON.parse(example as string), 'docs/cli.md')).not.toThrow();
  });
});
