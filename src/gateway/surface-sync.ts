import type { ListedPrompt, ListedResource, ListedResourceTemplate } from '../client/server-surface.js';
import type { ToolServer } from '../server/server.js';
import { syncEntries, type Clash } from './entry-sync.js';
import { relayPrompt, relayResource, relayTemplate, type SurfaceSource } from './surfaces.js';

/** What a mount keeps of the prompts, resources and templates it registered (key → fingerprint). */
export interface SurfaceRegistry {
  server: ToolServer;
  registered: { prompt: Map<string, string>; resource: Map<string, string>; template: Map<string, string> };
  refused(key: string, why: string): void;
}

/**
 * The mount's prompts made the listed ones: added, replaced when changed, removed when gone.
 * `marker` tells a listing read from the cache apart from a live one, so that the live one
 * replaces every cached entry (it may relay more, completion for one).
 */
export function syncPrompts(source: SurfaceSource, into: SurfaceRegistry, listed: readonly ListedPrompt[], marker = ''): Clash[] {
  const s = into.server;
  const desired = new Map(
    listed.map((p) => {
      const prompt = relayPrompt(source, p);
      return [prompt.name, { entry: prompt, fingerprint: marker + JSON.stringify(p) }] as const;
    }),
  );
  const slot = {
    kind: 'prompt' as const,
    has: (k: string) => s.prompts.has(k),
    add: (p: typeof desired extends Map<string, { entry: infer P }> ? P : never) => s.prompts.add(p),
    remove: (k: string) => s.prompts.remove(k),
  };
  return syncEntries(s, source.name, slot, desired, into.registered.prompt, (key, why) => into.refused(`prompt ${key}`, why));
}

/** The mount's resources and templates made the listed ones (as syncPrompts). */
export function syncResources(
  source: SurfaceSource,
  into: SurfaceRegistry,
  resources: readonly ListedResource[],
  templates: readonly ListedResourceTemplate[],
  marker = '',
): Clash[] {
  const s = into.server;
  const fixed = new Map(
    resources.map((r) => {
      const resource = relayResource(source, r);
      return [resource.uri, { entry: resource, fingerprint: marker + JSON.stringify(r) }] as const;
    }),
  );
  const families = new Map(
    templates.map((t) => {
      const template = relayTemplate(source, t);
      return [template.uriTemplate, { entry: template, fingerprint: marker + JSON.stringify(t) }] as const;
    }),
  );
  const refused = (key: string, why: string) => into.refused(`resource ${key}`, why);
  return [
    ...syncEntries(
      s,
      source.name,
      { kind: 'resource', has: (k) => s.resources.get(k) !== undefined, add: (r) => s.resources.add(r), remove: (k) => s.resources.remove(k) },
      fixed,
      into.registered.resource,
      refused,
    ),
    ...syncEntries(
      s,
      source.name,
      {
        kind: 'resource template',
        has: (k) => s.resources.getTemplate(k) !== undefined,
        add: (t) => s.resources.addTemplate(t),
        remove: (k) => s.resources.removeTemplate(k),
      },
      families,
      into.registered.template,
      refused,
    ),
  ];
}
