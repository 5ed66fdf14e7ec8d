import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkillCatalog } from '../../../src/server/primitives/skills/index.js';
import { ToolServer } from '../../../src/server/server.js';
import { tempDir } from '../../helpers/temp.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

const FIXTURE = join(import.meta.dirname, '../../../examples/conformance/skills');

/** docs/server.md's reloadSkills, as the page writes it. */
function reloadSkills(server: ToolServer, folder: string): void {
  const next = new SkillCatalog({ folder });
  const served = server.skills!;
  server.resources.replace({ uris: served.resources().map((r) => r.uri), templates: [] }, { resources: next.resources(), templates: [] });
  served.adopt(next);
}

/**
 * A server's skills swapped at run time (SkillCatalog.adopt with the resources registry's
 * replace, docs/server.md): what toolwright dev does when a skills folder changes.
 */
describe('a skills catalog adopting its folder loaded again', () => {
  it('lists, gets and reads the new skills and drops the removed files, in one resources list change', async () => {
    const folder = join(tempDir('tw-skills-adopt-'), 'skills');
    cpSync(FIXTURE, folder, { recursive: true });
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false, skills: folder });
    const w = wire(server);
    let changes = 0;
    server.resources.onChange(() => changes++);

    mkdirSync(join(folder, 'notes'));
    writeFileSync(join(folder, 'notes/SKILL.md'), '---\nname: notes\ndescription: Takes notes\n---\n# Notes\n');
    rmSync(join(folder, 'pdf-processing/scripts/fill.py'));
    reloadSkills(server, folder);

    expect(changes).toBe(1);
    const list = await w.modern('skills/list');
    expect(list.result.skills.map((s: { uri: string }) => s.uri)).toEqual(['skill://notes/SKILL.md', 'skill://pdf-processing/SKILL.md']);
    const got = await w.modern('skills/get', { uri: 'skill://notes/SKILL.md' });
    expect(got.result.skill.frontmatter).toEqual({ name: 'notes', description: 'Takes notes' });
    const read = await w.modern('resources/read', { uri: 'skill://notes/SKILL.md' });
    expect(read.result.contents[0].text).toContain('# Notes');
    const listed = await w.modern('resources/list');
    const uris = listed.result.resources.map((r: { uri: string }) => r.uri);
    expect(uris).toContain('skill://notes/SKILL.md');
    expect(uris).not.toContain('skill://pdf-processing/scripts/fill.py');
    expect((await w.modern('resources/read', { uri: 'skill://pdf-processing/scripts/fill.py' })).error).toBeDefined();
    const pdf = (await w.modern('skills/get', { uri: 'skill://pdf-processing/SKILL.md' })).result.skill;
    expect(pdf.resources.map((r: { uri: string }) => r.uri)).toEqual(['skill://pdf-processing/SKILL.md', 'skill://pdf-processing/references/FORMS.md']);
  });

  it('changes nothing when the folder loaded again is refused', async () => {
    const folder = join(tempDir('tw-skills-adopt-'), 'skills');
    cpSync(FIXTURE, folder, { recursive: true });
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false, skills: folder });
    const w = wire(server);
    mkdirSync(join(folder, 'broken'));
    writeFileSync(join(folder, 'broken/SKILL.md'), '---\nname: other\ndescription: d\n---\n');

    expect(() => reloadSkills(server, folder)).toThrow(/broken\/SKILL\.md:2: name "other" must equal its folder's name "broken"/);
    const list = await w.modern('skills/list');
    expect(list.result.skills.map((s: { uri: string }) => s.uri)).toEqual(['skill://pdf-processing/SKILL.md']);
    const read = await w.modern('resources/read', { uri: 'skill://pdf-processing/SKILL.md' });
    expect(read.result.contents[0].uri).toBe('skill://pdf-processing/SKILL.md');
  });
});
