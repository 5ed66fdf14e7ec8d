import { statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { PathSandbox } from '../policy/paths.js';
import { loadPromptFolder } from '../server/primitives/prompts/prompt-files.js';
import { SkillCatalog } from '../server/primitives/skills/index.js';
import type { ToolServer } from '../server/server.js';
import { fsResources } from '../toolsets/fs/resources.js';
import type { SkillsConfig, ToolwrightConfig } from './types.js';
import { ConfigError } from './validate.js';

/**
 * The resources and prompts a config describes: `resources.folders` (files
 * listed and read through a read-only sandbox with the fs toolset's deny
 * rules), `toolsets.fs.resources` (the fs roots, through the fs tools' own
 * sandbox) and `prompts.folder` (prompt files). Errors name the key.
 */
export function addConfiguredPrimitives(server: ToolServer, config: ToolwrightConfig, baseDir: string, file: string, fsSandbox: PathSandbox | undefined): void {
  const attempt = (key: string, add: () => void) => {
    try {
      add();
    } catch (err) {
      throw new ConfigError(file, [`${key}: ${(err as Error).message}`]);
    }
  };
  if (fsSandbox && config.toolsets?.fs?.resources === true) {
    attempt('toolsets.fs.resources', () => {
      const { resources, templates } = fsResources({ sandbox: fsSandbox });
      server.resources.add(...resources).addTemplate(...templates);
    });
  }
  const folders = config.resources?.folders;
  if (folders?.length) {
    attempt('resources.folders', () => {
      const sandbox = PathSandbox.create({
        roots: folders.map((f) => (typeof f === 'string' ? { path: f } : f)),
        cwd: baseDir,
        missingRoots: 'refuse',
        deny: config.resources?.deny,
        maxReadBytes: config.resources?.maxReadBytes,
      });
      const { resources, templates } = fsResources({
        sandbox,
        scheme: config.resources?.scheme ?? 'folder',
        listFiles: true,
        maxListed: config.resources?.maxListed,
      });
      server.resources.add(...resources).addTemplate(...templates);
    });
  }
  const prompts = config.prompts?.folder;
  if (prompts !== undefined) {
    attempt('prompts.folder', () => {
      checkFolder(path.resolve(baseDir, prompts), prompts);
      server.prompts.add(...loadPromptFolder(path.resolve(baseDir, prompts)));
    });
  }
}

/**
 * The skills the config's `skills` entry names, loaded and checked before the server is built:
 * a bad SKILL.md is a ConfigError naming `skills` and the file:line inside the folder.
 */
export function skillsOf(skills: SkillsConfig | undefined, baseDir: string, file: string): SkillCatalog | undefined {
  if (!skills) return undefined;
  try {
    checkFolder(path.resolve(baseDir, skills.folder), skills.folder, 'every folder in it with a SKILL.md is a skill');
    return new SkillCatalog({ folder: path.resolve(baseDir, skills.folder), deny: skills.deny, maxFileBytes: skills.maxFileBytes });
  } catch (err) {
    throw new ConfigError(file, [`skills: ${(err as Error).message}`]);
  }
}

/**
 * A folder the config names must be one: said with the path as the config wrote it (relative
 * to the config's folder), not as an errno message with the resolved absolute path.
 */
function checkFolder(resolved: string, written: string, what = 'every *.md file in the folder is a prompt'): void {
  let stat: Stats;
  try {
    stat = statSync(resolved);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new Error(`${JSON.stringify(written)} does not exist (relative to the config's folder); create it or fix the path`);
    throw new Error(`${JSON.stringify(written)} cannot be read (${code ?? (err as Error).message})`);
  }
  if (!stat.isDirectory()) throw new Error(`${JSON.stringify(written)} is not a folder (${what})`);
}
