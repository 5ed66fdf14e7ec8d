import { checkScopeList } from '../policy/auth/scopes.js';
import { isPlainObject } from '../protocol/content.js';

/*
 * Checks of the fields that tools, resources, templates and prompts define
 * alike. Each answers the problem in words (for the definition error the
 * caller throws, naming its own kind of definition), or undefined when the
 * field is fine or absent.
 */

/** `title` and `description`, when given, are strings. */
export function titleAndDescriptionProblem(def: { title?: unknown; description?: unknown }): string | undefined {
  for (const key of ['title', 'description'] as const) {
    if (def[key] !== undefined && typeof def[key] !== 'string') return `"${key}" must be a string`;
  }
  return undefined;
}

/** `icons`, when given, is a list of objects with a `src`; `_meta`, when given, is an object. */
export function iconsAndMetaProblem(def: { icons?: unknown; _meta?: unknown }): string | undefined {
  const { icons } = def;
  if (icons !== undefined && !(Array.isArray(icons) && icons.every((i) => isPlainObject(i) && typeof i.src === 'string'))) {
    return '"icons" must be a list of { src, mimeType?, sizes? }';
  }
  if (def._meta !== undefined && !isPlainObject(def._meta)) return '"_meta" must be an object';
  return undefined;
}

/** `timeoutMs`, when given, is a positive integer. */
export function timeoutProblem(timeoutMs: unknown): string | undefined {
  return timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0) ? '"timeoutMs" must be a positive integer' : undefined;
}

/** The definition's own `scopes` and `visibilityScopes`, when given, are scope lists (checkScopeList's rules). */
export function scopeFieldsProblem(def: { scopes?: unknown; visibilityScopes?: unknown }): string | undefined {
  for (const field of ['scopes', 'visibilityScopes'] as const) {
    if (def[field] === undefined) continue;
    try {
      checkScopeList(def[field], field);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return undefined;
}
