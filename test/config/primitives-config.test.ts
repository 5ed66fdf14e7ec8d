import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/validate.js';
import { tempDir } from '../helpers/temp.js';
import { wire } from '../helpers/wire.js';

const REVIEW = `---
name: code_review
title: Request code review
description: Asks the model to review code
arguments:
  - name: code
    description: The code to review
    required: true
  - name: language
    enum: [python, typescript, go]
---
Please review this {{language}} code:

{{code}}
<!-- assistant -->
I will look at naming, errors and tests first.
`;

function serve(config: Record<string, unknown>, files: Record<string, string> = {}) {
  const folder = tempDir('toolwright-primitives-config-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(folder, name, '..'), { recursive: true });
    writeFileSync(join(folder, name), text);
  }
  const file = join(folder, 'toolwright.config.json');
  writeFileSync(file, JSON.stringify({ server: { audit: false }, toolsets: { math: {} }, ...config }));
  const loaded = loadConfig(file);
  return { folder, w: wire(buildServer(loaded.config, loaded.baseDir, '1.0.0', loaded.file).server) };
}

describe('prompts.folder in the config', () => {
  it('a missing folder, or a file, is a config error naming the key and the path as written, never an errno with the absolute path', () => {
    for (const [written, files, why] of [
      ['./missing/prompts', {}, '"./missing/prompts" does not exist (relative to the config\'s folder)'],
      ['notes.md', { 'notes.md': 'x' }, '"notes.md" is not a folder'],
      ['notes.md/sub', { 'notes.md': 'x' }, '"notes.md/sub" does not exist'],
    ] as const) {
      let error: unknown;
      try {
        serve({ prompts: { folder: written } }, files);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toContain(`- prompts.folder: ${why}`);
      expect(message).not.toMatch(/ENOENT|ENOTDIR|scandir/);
      expect(message).not.toContain(tmpdir());
    }
  });

  it('serves every prompt file: arguments, messages in order, placeholders filled, the enum checked and completed', async () => {
    const { w } = serve(
      { prompts: { folder: 'prompts' } },
      { 'prompts/review.md': REVIEW, 'prompts/plain.md': 'Summarize the day.\n', 'prompts/notes.txt': 'ignored' },
    );
    const listed = (await w.modern('prompts/list')).result.prompts;
    expect(listed.map((p: any) => p.name)).toEqual(['plain', 'code_review']);
    expect(listed[1]).toEqual({
      name: 'code_review',
      title: 'Request code review',
      description: 'Asks the model to review code',
      arguments: [{ name: 'code', description: 'The code to review', required: true }, { name: 'language' }],
    });
    const got = (await w.modern('prompts/get', { name: 'code_review', arguments: { code: 'x = {{language}} $& 1', language: 'python' } })).result;
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Please review this python code:\n\nx = {{language}} $& 1' } },
      { role: 'assistant', content: { type: 'text', text: 'I will look at naming, errors and tests first.' } },
    ]);
    expect((await w.modern('prompts/get', { name: 'code_review', arguments: { code: 'x', language: 'cobol' } })).error.code).toBe(-32602);
    const completed = await w.modern('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 't' } });
    expect(completed.result.completion.values).toEqual(['typescript']);
  });

  it('refuses a prompt file with a placeholder that names no argument, naming the key and the file', () => {
    expect(() => serve({ prompts: { folder: 'prompts' } }, { 'prompts/bad.md': '---\narguments: [{ name: a }]\n---\nHello {{b}}\n' })).toThrow(
      /prompts\.folder: .*bad\.md: \{\{b\}\} names no declared argument/,
    );
    expect(() => serve({ prompts: { folder: 'prompts' } }, { 'prompts/bad.md': '---\nmodel: gpt\n---\nx\n' })).toThrow(/unknown front matter key "model"/);
    expect(() => serve({ prompts: { folder: 'missing' } })).toThrow(ConfigError);
    expect(() => serve({ prompts: { folder: 'p', extra: 1 } })).toThrow(ConfigError);
  });
});

describe('resources.folders in the config', () => {
  it('lists the files and reads them through a read-only sandbox with the deny rules', async () => {
    const { w } = serve({ resources: { folders: ['docs'] } }, { 'docs/guide.md': '# Guide', 'docs/api/ref.json': '{}', 'docs/.env': 'SECRET=1' });
    const uris = (await w.modern('resources/list')).result.resources.map((r: any) => r.uri);
    expect(uris).toEqual(['folder:///', 'folder:///guide.md', 'folder:///api/ref.json']);
    expect((await w.modern('resources/read', { uri: 'folder:///guide.md' })).result.contents).toEqual([
      { uri: 'folder:///guide.md', mimeType: 'text/markdown', text: '# Guide' },
    ]);
    expect((await w.modern('resources/read', { uri: 'folder:///.env' })).error.code).toBe(-32602);
    // Read-only: nothing to write with, and no tool was added for it.
    expect((await w.modern('tools/list')).result.tools.map((t: any) => t.name)).not.toContain('write_file');
  });

  it('toolsets.fs.resources serves the fs roots beside the fs tools', async () => {
    const { w } = serve({ toolsets: { fs: { roots: ['ws'], resources: true } } }, { 'ws/a.txt': 'A' });
    expect((await w.modern('resources/read', { uri: 'toolwright-fs:///a.txt' })).result.contents[0].text).toBe('A');
  });

  it('refuses a folder that does not exist and keys it does not know', () => {
    expect(() => serve({ resources: { folders: ['nope'] } })).toThrow(/resources\.folders: .*does not exist/);
    expect(() => serve({ resources: { folders: ['docs'], watch: true } }, { 'docs/a': 'a' })).toThrow(ConfigError);
  });
});
