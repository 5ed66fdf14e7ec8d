/**
 * What a host reads from a listed tool's `_meta` (SEP-1865), dependency-free so
 * the console's front end and server can both use it. `visibility` defaults to
 * both; anything malformed counts as that default, except that an app may
 * never call a tool whose visibility is a list without "app".
 */

/** The `ui://` resource a tool's `_meta` names, if any (`ui.resourceUri`, else the deprecated flat `ui/resourceUri`). */
export function appResourceUriOf(meta: unknown): string | undefined {
  if (meta === null || typeof meta !== 'object') return undefined;
  const m = meta as Record<string, unknown>;
  const ui = m.ui;
  if (ui !== null && typeof ui === 'object' && typeof (ui as Record<string, unknown>).resourceUri === 'string')
    return (ui as Record<string, string>).resourceUri;
  return typeof m['ui/resourceUri'] === 'string' ? m['ui/resourceUri'] : undefined;
}

function visibilityOf(meta: unknown): unknown[] | undefined {
  if (meta === null || typeof meta !== 'object') return undefined;
  const ui = (meta as Record<string, unknown>).ui;
  if (ui === null || typeof ui !== 'object') return undefined;
  const visibility = (ui as Record<string, unknown>).visibility;
  return Array.isArray(visibility) ? visibility : undefined;
}

/** Whether a host may list the tool to the model (hosts MUST hide `visibility: ["app"]` tools). */
export function isVisibleToModel(meta: unknown): boolean {
  const visibility = visibilityOf(meta);
  return visibility === undefined || visibility.includes('model');
}

/** Whether an app may call the tool through its host (hosts MUST refuse when "app" is left out). */
export function isCallableByApp(meta: unknown): boolean {
  const visibility = visibilityOf(meta);
  return visibility === undefined || visibility.includes('app');
}
