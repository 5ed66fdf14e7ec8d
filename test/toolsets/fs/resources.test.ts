import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathSandbox } from '../../../src/policy/paths.js';
import { ToolServer } from '../../../src/server/server.js';
import { fsResources } from '../../../src/toolsets/fs/resources.js';
import { tempDir } from '../../helpers/temp.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

async function setup(options: { listFiles?: boolean; roots?: number } = {}) {
  const dir = tempDir('tw-fs-res-');
  const root = join(dir, 'workspace');
  mkdirSync(join(root, 'notes'), { recursive: true });
  writeFileSync(join(root, 'notes', 'todo.md'), '# Todo\n- write tests\n');
  writeFileSync(join(root, 'pixel.png'), PNG);
  writeFileSync(join(root, '.env'), 'SECRET=hunter2\n');
  writeFileSync(join(dir, 'outside.txt'), 'outside the root');
  symlinkSync(join(dir, 'outside.txt'), join(root, 'escape.txt'));
  const roots = [root];
  if (options.roots === 2) {
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'guide.md'), 'Guide');
    roots.push(join(dir, 'docs'));
  }
  const sandbox = PathSandbox.create({ roots, maxReadBytes: 1024 });
  const { resources, templates } = fsResources({ sandbox, listFiles: options.listFiles });
  const server = new ToolServer({ logger: memoryLogger().logger, audit: false, resources, resourceTemplates: templates });
  return { dir, w: wire(server) };
}

const read = (w: ReturnType<typeof wire>, uri: string) => w.modern('resources/read', { uri });

describe('fs roots as resources (read-only, the fs sandbox)', () => {
  it('lists the root and a template for the files below it', async () => {
    const { w } = await setup();
    expect((await w.modern('resources/list')).result.resources).toEqual([
      expect.objectContaining({ uri: 'toolwright-fs:///', name: 'workspace', mimeType: 'application/json' }),
    ]);
    expect((await w.modern('resources/templates/list')).result.resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'toolwright-fs:///{+path}', name: 'files' }),
    ]);
  });

  it('reads text as text, an image as a blob, and a directory as its entries', async () => {
    const { w } = await setup();
    expect((await read(w, 'toolwright-fs:///notes/todo.md')).result.contents).toEqual([
      { uri: 'toolwright-fs:///notes/todo.md', mimeType: 'text/markdown', text: '# Todo\n- write tests\n' },
    ]);
    expect((await read(w, 'toolwright-fs:///pixel.png')).result.contents[0]).toMatchObject({ mimeType: 'image/png', blob: PNG.toString('base64') });
    const root = JSON.parse((await read(w, 'toolwright-fs:///')).result.contents[0].text);
    // .env is denied and escape.txt is a link: neither is listed.
    expect(root.entries.map((e: any) => e.name).sort()).toEqual(['notes', 'pixel.png']);
    expect(root.entries.find((e: any) => e.name === 'notes')).toEqual({ uri: 'toolwright-fs:///notes', name: 'notes', type: 'directory' });
  });

  it('refuses what the sandbox refuses: denied names, links out of the root, traversal, files over the read cap', async () => {
    const { dir, w } = await setup();
    writeFileSync(join(dir, 'workspace', 'big.txt'), 'x'.repeat(2048));
    for (const uri of [
      'toolwright-fs:///.env',
      'toolwright-fs:///escape.txt',
      'toolwright-fs:///notes/../../outside.txt',
      'toolwright-fs:///big.txt',
      `toolwright-fs:///${encodeURIComponent(dir)}/outside.txt`,
    ]) {
      const res = await read(w, uri);
      expect(res.error?.code, uri).toBe(-32602);
      expect(JSON.stringify(res)).not.toContain(dir); // no absolute path reaches the client
      expect(JSON.stringify(res)).not.toContain('outside the root');
      expect(JSON.stringify(res)).not.toContain('hunter2');
    }
  });

  it('answers a file that does not exist with Resource not found', async () => {
    const { w } = await setup();
    expect((await read(w, 'toolwright-fs:///notes/nope.md')).error).toEqual({
      code: -32602,
      message: 'Resource not found',
      data: { uri: 'toolwright-fs:///notes/nope.md' },
    });
  });

  it('completes paths from the directory typed so far, leaving denied names out', async () => {
    const { w } = await setup();
    const complete = (value: string) =>
      w.modern('completion/complete', { ref: { type: 'ref/resource', uri: 'toolwright-fs:///{+path}' }, argument: { name: 'path', value } });
    expect((await complete('no')).result.completion.values).toEqual(['notes/']);
    expect((await complete('notes/t')).result.completion.values).toEqual(['notes/todo.md']);
    expect((await complete('.e')).result.completion.values).toEqual([]);
    expect((await complete('../')).result.completion.values).toEqual([]);
  });

  it('with several roots, paths start with the root name; with listFiles, every file is listed', async () => {
    const { w } = await setup({ roots: 2, listFiles: true });
    const uris = (await w.modern('resources/list')).result.resources.map((r: any) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'toolwright-fs:///workspace',
        'toolwright-fs:///docs',
        'toolwright-fs:///docs/guide.md',
        'toolwright-fs:///workspace/notes/todo.md',
      ]),
    );
    expect(uris).not.toContain('toolwright-fs:///workspace/.env');
    expect((await read(w, 'toolwright-fs:///docs/guide.md')).result.contents[0].text).toBe('Guide');
    expect(JSON.parse((await read(w, 'toolwright-fs:///')).result.contents[0].text).entries.map((e: any) => e.name)).toEqual(['workspace', 'docs']);
  });
});
