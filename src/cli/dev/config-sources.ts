import { resolve } from 'node:path';
import { buildServer } from '../../config/build.js';
import type { LoadedConfig } from '../../config/load.js';
import type { ToolwrightConfig } from '../../config/types.js';
import type { Prompt } from '../../server/primitives/prompts/prompt.js';
import type { Resource, ResourceTemplate } from '../../server/primitives/resources/resource.js';
import type { SkillCatalog } from '../../server/primitives/skills/index.js';
import type { ToolServer } from '../../server/server.js';
import type { Tool } from '../../server/tool.js';

/** What a config contributes to a server, apart from its tools modules: what `toolwright dev` swaps when the config or a folder changes. */
export interface ConfigSources {
  toolsetTools: Tool[];
  prompts: Prompt<unknown>[];
  /** The config's resources (folders, the fs roots), skill files excluded. */
  resources: Resource[];
  templates: ResourceTemplate<unknown>[];
  skills?: SkillCatalog;
  /** The tools modules it names, resolved. */
  modules: string[];
  /** Folders to watch, by what they hold. */
  folders: { prompts?: string; resources: string[]; skills?: string };
}

/** The config sections a running server cannot take in without a restart (its options, its transports, its pipeline). */
const RESTART_SECTIONS = ['server', 'middleware', 'upstreams'] as const;

/** What a server built from this config has, before any tools module: read off that server. */
export function sourcesOf(server: ToolServer, loaded: LoadedConfig): ConfigSources {
  const skillUris = new Set(server.skills?.resources().map((r) => r.uri));
  const { config, baseDir } = loaded;
  return {
    toolsetTools: server.tools.list().map((c) => c.tool),
    prompts: server.prompts.list().map((c) => c.prompt),
    resources: server.resources
      .list()
      .filter((c) => !skillUris.has(c.uri))
      .map((c) => c.resource),
    templates: server.resources.templates().map((c) => c.template),
    ...(server.skills ? { skills: server.skills } : {}),
    modules: (config.tools ?? []).map((m) => resolve(baseDir, m)),
    folders: {
      ...(config.prompts?.folder !== undefined ? { prompts: resolve(baseDir, config.prompts.folder) } : {}),
      resources: (config.resources?.folders ?? []).map((f) => resolve(baseDir, typeof f === 'string' ? f : f.path)),
      ...(config.skills ? { skills: resolve(baseDir, config.skills.folder) } : {}),
    },
  };
}

/**
 * The config read again, built into a throwaway server (no audit trail, no tasks, in-memory
 * state: nothing is opened that outlives it) so every check start-up makes is made again: a
 * ConfigError leaves the running server as it was.
 */
export function reloadConfigSources(loaded: LoadedConfig, version: string): ConfigSources {
  const { toolsets, prompts, resources, skills } = loaded.config;
  const config: ToolwrightConfig = { toolsets, prompts, resources, skills, server: { audit: false, tasks: false } };
  const { server } = buildServer(config, loaded.baseDir, version, loaded.file);
  try {
    return sourcesOf(server, loaded);
  } finally {
    server.close();
  }
}

/** The sections that changed and need a restart to apply (said, not applied). */
export function restartNeeded(before: ToolwrightConfig, after: ToolwrightConfig): string[] {
  return RESTART_SECTIONS.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
}
