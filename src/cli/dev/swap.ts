import { warmValidator } from '../../schema/compile.js';
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
 * Checks tools as registration would, and sooner: each compiles (name, description, handler,
 * schemas against their dialect) and its argument and output validators are built now, so a
 * schema Ajv cannot compile fails the reload instead of the first call after it.
 */
export function checkTools(tools: readonly Tool[]): void {
  for (const tool of tools) {
    const compiled = compileTool(tool);
    warmValidator(compiled.validateArgs);
    if (compiled.validateOutput) warmValidator(compiled.validateOutput);
  }
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
