import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/validate.js';
import { tempDir } from '../helpers/temp.js';
import { wire } from '../helpers/wire.js';

function build(config: Record<string, unknown>, files: Record<string, string> = {}) {
  const folder = tempDir('toolwright-skills-config-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(folder, name, '..'), { recursive: true });
    writeFileSync(join(folder, name), text);
  }
  const file = join(folder, 'toolwright.config.yaml');
  writeFileSync(file, JSON.stringify({ server: { audit: false }, ...config }));
  const loaded = loadConfig(file);
  return buildServer(loaded.config, loaded.baseDir, '1.0.0', loaded.file).server;
}

const errorOf = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('no error');
};

describe('skills in the config', () => {
  it('serves the skill folders of skills.folder, relative to the config', async () => {
    const server = build({ skills: { folder: 'skills' } }, { 'skills/greet/SKILL.md': '---\nname: greet\ndescription: Greets people\n---\nSay hello.\n' });
    const res = await wire(server).modern('skills/list');
    expect(res.result.skills).toEqual([
      expect.objectContaining({ uri: 'skill://greet/SKILL.md', frontmatter: { name: 'greet', description: 'Greets people' } }),
    ]);
  });

  it('a bad SKILL.md is a config error naming the key and file:line, without the absolute path', () => {
    const err = errorOf(() => build({ skills: { folder: 'skills' } }, { 'skills/greet/SKILL.md': '---\nname: greet\n---\n' }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('skills: greet/SKILL.md:2: "description" is required');
    const missing = errorOf(() => build({ skills: { folder: 'nowhere' } }));
    expect(missing.message).toContain('skills: "nowhere" does not exist');
    expect(missing.message).not.toContain(tmpdir());
    expect(err.message).not.toContain(tmpdir());
  });

  it('refuses unknown keys under skills (the schema)', () => {
    const err = errorOf(() => build({ skills: { folder: 'skills', follow: true } }, { 'skills/.keep': '' }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/skills/);
  });
});
