import { compileTool } from '../../server/compile-tool.js';
import type { ToolServer } from '../../server/server.js';
import type { Tool } from '../../server/tool.js';
import type { ConfigSources } from './config-sources.js';

/** What of the server's registries came from the config (not from tools modules, upstreams or code): what a reload may replace. */
export interface ConfigOwned {
  toolNames: string[];
  promptNames: string[];
  resourceUris: string[];
  templates: string[];
  skillUris: string[];
}

export type SourceKind = 'tools' | 'prompts' | 'resources' | 'skills';

export function ownedBy(sources: ConfigSources | undefined): ConfigOwned {
  return {
    toolNames: sources?.toolsetTools.map((t) => t.name) ?? [],
    promptNames: sources?.prompts.map((p) => p.name) ?? [],
    resourceUris: sources?.resources.map((r) => r.uri) ?? [],
    templates: sources?.templates.map((t) => t.uriTemplate) ?? [],
    skillUris: sources?.skills?.resources().map((r) => r.uri) ?? [],
  };
}

/**
 * Checks tools as registration does, before anything is swapped: names, descriptions, handlers,
 * schemas against their dialect's meta-schema, `$ref`s that resolve, bounds (compile-tool.ts).
 * Ajv's code generation still waits for a tool's first call, as at start-up: warming every
 * validator on every reload would spend a compilation (milliseconds) per tool on each save, for
 * tools nobody calls. (What a replaced tool's validator cost in memory is freed: ajv-pool.ts.)
 */
export function checkTools(tools: readonly Tool[]): void {
  for (const tool of tools) compileTool(tool);
}

/**
 * Swaps the prompts, resources (with the skills' files) and the skills catalog a reloaded
 * config describes, each kind in one registry change (one list_changed). Tools are the
 * reloader's (they mix the config's toolsets with the modules'). Returns what is now owned.
 */
export function swapConfigKinds(server: ToolServer, owned: ConfigOwned, sources: ConfigSources, kinds: ReadonlySet<SourceKind>): ConfigOwned {
  const next = ownedBy(sources);
  if (kinds.has('prompts')) server.prompts.replace(owned.promptNames, sources.prompts);
  else next.promptNames = owned.promptNames;
  const skills = kinds.has('skills') && server.skills && sources.skills ? sources.skills : undefined;
  if (kinds.has('resources') || skills) {
    const resources = kinds.has('resources');
    server.resources.replace(
      { uris: [...(resources ? owned.resourceUris : []), ...(skills ? owned.skillUris : [])], templates: resources ? owned.templates : [] },
      { resources: [...(resources ? sources.resources : []), ...(skills ? skills.resources() : [])], templates: resources ? sources.templates : [] },
    );
    if (skills) server.skills!.adopt(skills);
  }
  if (!kinds.has('resources')) {
    next.resourceUris = owned.resourceUris;
    next.templates = owned.templates;
  }
  if (!skills) next.skillUris = owned.skillUris;
  next.toolNames = owned.toolNames;
  return next;
}
