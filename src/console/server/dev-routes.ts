import type { DevReloadState } from '../api-types.js';
import type { ApiRoutes } from './api-routes.js';

/**
 * `GET dev/reload` outside `toolwright dev`: not available. `toolwright dev` serves its own
 * answer in its place (createConsoleApp's `routes`, which win over these), so the page asks one
 * route everywhere and a console without it never sees a 404.
 */
export const devRoutes = {
  'GET dev/reload': async (): Promise<DevReloadState> => ({ available: false }),
} satisfies ApiRoutes;
