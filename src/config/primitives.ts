import path from 'node:path';
import { PathSandbox } from '../policy/paths.js';
import { loadPromptFolder } from '../server/primitives/prompts/prompt-files.js';
import type { ToolServer } from '../server/server.js';
import { fsResources } from '../toolsets/fs/resources.js';
import type { ToolwrightConfig } from './types.js';
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
      const { resources, templates } = fsResources({ sandbox, scheme: config.resources?.scheme ?? 'folder', listFiles: true, maxListed: config.resources?.maxListed });
      server.resources.add(...resources).addTemplate(...templates);
    });
  }
  const prompts = config.prompts?.folder;
  if (prompts !== undefined) attempt('prompts.folder', () => server.prompts.add(...loadPromptFolder(path.resolve(baseDir, prompts))));
}
