import { readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { listCollections, readCollection, saveCall, saveCollection } from '../../src/collections/store.js';

describe('collection store', () => {
  it('round-trips a collection as 2-space JSON with a trailing newline', async () => {
    const dir = join(tempDir('tw-coll-'), 'collections');
    const collection = { name: 'smoke', calls: [{ id: 'a', tool: 'echo', arguments: { text: 'hi' } }] };
    await saveCollection(dir, collection);
    expect(await readCollection(dir, 'smoke')).toEqual(collection);
    expect(readFileSync(join(dir, 'smoke.json'), 'utf8')).toBe(`${JSON.stringify(collection, null, 2)}\n`);
  });
  it('refuses hostile names and a symlinked folder', async () => {
    const root = tempDir('tw-coll-');
    await expect(saveCollection(root, { name: '../x', calls: [] })).rejects.toThrow(/invalid collection name/);
    symlinkSync(tmpdir(), join(root, 'linked'));
    await expect(saveCollection(join(root, 'linked'), { name: 'x', calls: [] })).rejects.toThrow(/symbolic link/);
  });
  it('saveCall adds or replaces by id, listCollections lists names', async () => {
    const dir = join(tempDir('tw-coll-'), 'collections');
    await saveCall(dir, 'c', { id: 'a', tool: 't', arguments: {} });
    await saveCall(dir, 'c', { id: 'a', tool: 'u', arguments: {} });
    expect((await readCollection(dir, 'c')).calls).toEqual([{ id: 'a', tool: 'u', arguments: {} }]);
    expect(await listCollections(dir)).toEqual(['c']);
  });
});
