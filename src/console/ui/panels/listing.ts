import { useEffect, useState } from 'preact/hooks';
import { apiGet } from '../api.js';
import type { ConnectionStatus } from '../../api-types.js';
import { onServerEvent } from '../events.js';

/** Which of the server's optional lists hold something: a screen for an empty list is not shown. */
export interface Listing {
  resources?: boolean;
  prompts?: boolean;
  /** The server is a toolwright gateway (it serves its upstreams' health). */
  upstreams?: boolean;
}

async function countOf(paths: Array<'resources' | 'resource-templates' | 'prompts'>): Promise<boolean> {
  const answers = await Promise.all(paths.map((path) => apiGet(path).catch(() => ({}))));
  return answers.some((answer) => Object.values(answer).some((list) => Array.isArray(list) && list.length > 0));
}

/**
 * Servers (toolwright's among them) declare `resources` and `prompts` with `listChanged` even
 * when they have none, since some may come later. A Resources tab over an empty list only says
 * "nothing here", so the tab shows once the server lists something (resources or templates; a
 * prompt), and appears or goes when its list-changed notification says the list changed. A
 * link straight to the screen still opens it. Only lists the server declares are asked for.
 */
export function useListing(status: ConnectionStatus): Listing {
  const [listing, setListing] = useState<Listing>({});
  const declares = (name: string) => status.connected === true && Boolean(status.capabilities?.[name]);
  const resources = declares('resources');
  const prompts = declares('prompts');
  useEffect(() => {
    setListing({});
    let live = true;
    const load = (which: keyof Listing, paths: Parameters<typeof countOf>[0]) => () =>
      void countOf(paths).then((has) => {
        if (live) setListing((now) => ({ ...now, [which]: has }));
      });
    const loadResources = load('resources', ['resources', 'resource-templates']);
    const loadPrompts = load('prompts', ['prompts']);
    if (resources) loadResources();
    if (resources)
      void apiGet('upstreams').then(
        (a) => live && setListing((now) => ({ ...now, upstreams: a.gateway })),
        () => {},
      );
    if (prompts) loadPrompts();
    const stops = [
      resources ? onServerEvent('resources-changed', loadResources) : () => {},
      prompts ? onServerEvent('prompts-changed', loadPrompts) : () => {},
    ];
    return () => {
      live = false;
      for (const stop of stops) stop();
    };
  }, [status.connected, status.target, resources, prompts]);
  return listing;
}
