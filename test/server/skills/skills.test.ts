import { createHash } from 'node:crypto';
import { cpSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { tempDir } from '../../helpers/temp.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

const FIXTURE = join(import.meta.dirname, '../../../examples/conformance/skills');
const sha = (bytes: Buffer | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function serve(folder: string, pageSize?: number) {
  const server = new ToolServer({ logger: memoryLogger().logger, audit: false, skills: folder, pageSize });
  return { server, ...wire(server) };
}

/** A copy of the fixture skills folder to spoil. */
function copy(): string {
  const dir = join(tempDir('tw-skills-'), 'skills');
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

function skill(folder: string, name: string, frontmatter: string, body = '# body\n'): string {
  mkdirSync(join(folder, name), { recursive: true });
  writeFileSync(join(folder, name, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}`);
  return join(folder, name);
}

describe('the Skills extension (SEP-2640) on a ToolServer', () => {
  it('declares the extension with directoryRead beside the resources capability, in both eras', async () => {
    const w = serve(FIXTURE);
    const discover = await w.modern('server/discover');
    expect(discover.result.capabilities.extensions['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
    expect(discover.result.capabilities.resources).toBeDefined();
    const init = await w.initialize();
    expect(init.result.capabilities.extensions['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
  });

  it('lists each skill with its frontmatter and every file once, SKILL.md first, with sha256 digests and byte sizes', async () => {
    const w = serve(FIXTURE);
    const res = await w.modern('skills/list');
    expect(res.result.ttlMs).toBeTypeOf('number');
    expect(res.result.cacheScope).toBe('public');
    const [entry] = res.result.skills;
    expect(entry.uri).toBe('skill://pdf-processing/SKILL.md');
    expect(entry.frontmatter).toEqual({
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      license: 'Apache-2.0',
      metadata: { author: 'toolwright' },
    });
    const forms = readFileSync(join(FIXTURE, 'pdf-processing/references/FORMS.md'));
    expect(entry.resources.map((r: { uri: string }) => r.uri)).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/references/FORMS.md',
      'skill://pdf-processing/scripts/fill.py',
    ]);
    expect(entry.resources[1]).toEqual({ uri: 'skill://pdf-processing/references/FORMS.md', digest: sha(forms), size: forms.byteLength });
  });

  it('skills/get returns the same entry without a cursor; an unknown uri is -32602', async () => {
    const w = serve(FIXTURE);
    const list = await w.modern('skills/list');
    const got = await w.modern('skills/get', { uri: 'skill://pdf-processing/SKILL.md' });
    expect(got.result.skill).toEqual(list.result.skills[0]);
    expect(got.result.nextCursor).toBeUndefined();
    const unknown = await w.modern('skills/get', { uri: 'skill://nope/SKILL.md' });
    expect(unknown.error.code).toBe(-32602);
    const bad = await w.modern('skills/get', { uri: 42 });
    expect(bad.error.code).toBe(-32602);
  });

  it('reads SKILL.md through resources/read as text/markdown whose bytes match the listed digest', async () => {
    const w = serve(FIXTURE);
    const res = await w.modern('resources/read', { uri: 'skill://pdf-processing/SKILL.md' });
    const [content] = res.result.contents;
    expect(content.mimeType).toBe('text/markdown');
    expect(sha(content.text)).toBe(sha(readFileSync(join(FIXTURE, 'pdf-processing/SKILL.md'))));
    const listed = await w.modern('resources/list');
    expect(listed.result.resources).toContainEqual(
      expect.objectContaining({ uri: 'skill://pdf-processing/SKILL.md', name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents' }),
    );
  });

  it('resources/directory/read lists direct children, subfolders as inode/directory; a file is -32602', async () => {
    const w = serve(FIXTURE);
    const res = await w.modern('resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(res.result.resources).toEqual([
      { uri: 'skill://pdf-processing/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: expect.any(Number) },
      { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-processing/scripts', name: 'scripts', mimeType: 'inode/directory' },
    ]);
    const file = await w.modern('resources/directory/read', { uri: 'skill://pdf-processing/SKILL.md' });
    expect(file.error.code).toBe(-32602);
  });

  it('pages skills/list by whole entries', async () => {
    const folder = tempDir('tw-skills-');
    for (const name of ['alpha', 'beta', 'gamma']) skill(folder, name, `name: ${name}\ndescription: the ${name} skill`);
    const w = serve(folder, 2);
    const first = await w.modern('skills/list');
    expect(first.result.skills.map((s: { frontmatter: { name: string } }) => s.frontmatter.name)).toEqual(['alpha', 'beta']);
    const second = await w.modern('skills/list', { cursor: first.result.nextCursor });
    expect(second.result.skills.map((s: { frontmatter: { name: string } }) => s.frontmatter.name)).toEqual(['gamma']);
    expect(second.result.nextCursor).toBeUndefined();
    expect((await w.modern('skills/list', { cursor: 'forged' })).error.code).toBe(-32602);
  });
});

describe('hostile skill folders', () => {
  it('refuses a symbolic link leading out of the folder at start-up, naming it', () => {
    const folder = copy();
    const secret = join(tempDir('tw-secret-'), 'secret.txt');
    writeFileSync(secret, 'top secret');
    symlinkSync(secret, join(folder, 'pdf-processing/references/leak.md'));
    expect(() => serve(folder)).toThrow(/pdf-processing\/references\/leak\.md: symbolic links are not served/);
  });

  it('refuses a skill folder that is itself a symbolic link', () => {
    const folder = copy();
    symlinkSync(join(folder, 'pdf-processing'), join(folder, 'linked'));
    expect(() => serve(folder)).toThrow(/linked: symbolic links are not served/);
  });

  it('refuses a hard-linked file (it may alias one outside the folder)', () => {
    const folder = copy();
    const outside = join(tempDir('tw-outside-'), 'x.md');
    writeFileSync(outside, 'outside');
    linkSync(outside, join(folder, 'pdf-processing/x.md'));
    expect(() => serve(folder)).toThrow(/pdf-processing\/x\.md: a file with several hard links/);
  });

  it('never serves hidden or denied names (.env, keys) and never maps a uri with .. to a file', async () => {
    const folder = copy();
    writeFileSync(join(folder, 'pdf-processing/.env'), 'TOKEN=x');
    writeFileSync(join(folder, 'pdf-processing/server.pem'), 'KEY');
    const w = serve(folder);
    const entry = (await w.modern('skills/get', { uri: 'skill://pdf-processing/SKILL.md' })).result.skill;
    expect(entry.resources.map((r: { uri: string }) => r.uri).join(' ')).not.toMatch(/\.env|\.pem/);
    for (const uri of ['skill://pdf-processing/.env', 'skill://pdf-processing/server.pem', 'skill://pdf-processing/../pdf-processing/SKILL.md']) {
      expect((await w.modern('resources/read', { uri })).error.code).toBe(-32602);
    }
  });

  it('refuses a file over the size cap, and a skill over 512 files', () => {
    const folder = copy();
    writeFileSync(join(folder, 'pdf-processing/huge.bin'), Buffer.alloc(2048));
    expect(() => new ToolServer({ logger: memoryLogger().logger, audit: false, skills: { folder, maxFileBytes: 1024 } })).toThrow(
      /pdf-processing\/huge\.bin: 2048 bytes; a skill file may have at most 1024/,
    );
    const many = tempDir('tw-skills-');
    const dir = skill(many, 'many', 'name: many\ndescription: many files');
    for (let i = 0; i < 512; i++) writeFileSync(join(dir, `f${i}.txt`), '');
    expect(() => serve(many)).toThrow(/many: 513 files; a skill may have at most 512/);
  });

  it('says which file and line is wrong in a bad frontmatter', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['broken', 'name: broken\ndescription: [unclosed', /broken\/SKILL\.md:\d+: the frontmatter is not valid YAML/],
      ['no-desc', 'name: no-desc', /no-desc\/SKILL\.md:2: "description" is required/],
      ['mismatch', 'description: d\nname: other', /mismatch\/SKILL\.md:3: name "other" must equal its folder's name "mismatch"/],
      ['Bad--Name', 'name: Bad--Name\ndescription: d', /Bad--Name\/SKILL\.md:2: name "Bad--Name" breaks the Agent Skills naming rules/],
    ];
    for (const [name, frontmatter, message] of cases) {
      const folder = tempDir('tw-skills-');
      skill(folder, name, frontmatter);
      expect(() => serve(folder)).toThrow(message);
    }
    const none = tempDir('tw-skills-');
    mkdirSync(join(none, 'empty'));
    expect(() => serve(none)).toThrow(/empty\/SKILL\.md: every skill folder must hold a SKILL\.md/);
    const plain = tempDir('tw-skills-');
    skill(plain, 'plain', 'x', '').toString();
    writeFileSync(join(plain, 'plain/SKILL.md'), '# no frontmatter\n');
    expect(() => serve(plain)).toThrow(/plain\/SKILL\.md:1: SKILL\.md must begin with YAML frontmatter/);
  });

  it('refuses to serve a file changed since start-up (its listed digest no longer holds)', async () => {
    const folder = copy();
    const w = serve(folder);
    writeFileSync(join(folder, 'pdf-processing/references/FORMS.md'), '# Forms\n\nEvil body!!!!!!!!!!!!!!!!!\n');
    const res = await w.modern('resources/read', { uri: 'skill://pdf-processing/references/FORMS.md' });
    expect(res.error).toBeDefined();
    expect(JSON.stringify(res.error)).not.toContain(folder);
  });
});
