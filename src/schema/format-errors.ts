import type { ErrorObject } from 'ajv';
import { clip } from '../jsonrpc/error-bounds.js';

/** How many problems an error lists: enough to fix a few mistakes in one retry, never a flood (issue 21 #8). */
export const MAX_LISTED_PROBLEMS = 10;
/** How long one problem's text may be (a property name or an enum can be megabytes). */
export const MAX_PROBLEM_CHARS = 300;

/**
 * Turns Ajv errors into one sentence per offending field, so that a model can
 * correct its mistakes in one retry. At most MAX_LISTED_PROBLEMS are
 * described, each at most MAX_PROBLEM_CHARS long; the rest are only counted,
 * in a last line ("… and 299990 more problems"), so 300,000 unknown
 * properties cost a count, not 300,000 sentences.
 */
export function describeValidationErrors(errors: ErrorObject[] | null | undefined, root = 'arguments'): string[] {
  if (!errors?.length) return [];
  return boundedProblems(
    errors.filter((e) => e.keyword !== 'if'),
    (e) => describe(e, root),
  ); // an if's then/else branch reports the real problem
}

/**
 * The first MAX_LISTED_PROBLEMS distinct descriptions of `items` (each
 * clipped), then "… and K more problems" for the rest, which are never
 * described.
 */
export function boundedProblems<T>(items: readonly T[], describeOne: (item: T) => string): string[] {
  const lines = new Set<string>();
  let i = 0;
  for (; i < items.length && lines.size < MAX_LISTED_PROBLEMS; i++) lines.add(clip(describeOne(items[i]), MAX_PROBLEM_CHARS));
  const more = items.length - i;
  return more > 0 ? [...lines, `… and ${more} more problem${more === 1 ? '' : 's'}`] : [...lines];
}

function describe(e: ErrorObject, root: string): string {
  const at = pathOf(e.instancePath, root);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${join(at, String(p.missingProperty))}: required field is missing`;
    case 'additionalProperties':
      return `${join(at, String(p.additionalProperty))}: unexpected field (not allowed by the schema)`;
    case 'unevaluatedProperties':
      return `${join(at, String(p.unevaluatedProperty))}: unexpected field (not allowed by the schema)`;
    case 'type':
      return `${at}: expected ${String(p.type)}`;
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      const shown = allowed.slice(0, MAX_LISTED_PROBLEMS).map((v) => clip(JSON.stringify(v) ?? String(v), 60));
      return `${at}: expected one of ${shown.join(', ')}${allowed.length > shown.length ? `, … (${allowed.length} values)` : ''}`;
    }
    case 'const':
      return `${at}: expected ${clip(JSON.stringify(p.allowedValue) ?? String(p.allowedValue), 100)}`;
    default:
      return `${at}: ${e.message ?? 'is invalid'}`;
  }
}

/** `root.key`, or `root["odd key"]`: how a problem names a property of the root. */
export function propertyPath(root: string, key: string): string {
  return join(root, key);
}

function join(at: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
}

function pathOf(pointer: string, root: string): string {
  if (!pointer) return root;
  let out = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out = /^\d+$/.test(seg) ? `${out}[${seg}]` : join(out, seg);
  }
  return out;
}
