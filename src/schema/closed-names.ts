import { clip } from '../jsonrpc/error-bounds.js';
import { MAX_LISTED_PROBLEMS, MAX_PROBLEM_CHARS, propertyPath } from './format-errors.js';

/**
 * The names an object schema admits at its root, when it admits no others: `properties` with
 * `additionalProperties: false` and no `patternProperties` (`allOf` and the like cannot add a
 * name that `additionalProperties: false` refuses). Undefined for any other schema.
 */
export function closedNames(schema: Record<string, unknown>): ReadonlySet<string> | undefined {
  if (schema.additionalProperties !== false || schema.patternProperties !== undefined) return undefined;
  const properties = schema.properties;
  if (properties !== undefined && (properties === null || typeof properties !== 'object' || Array.isArray(properties))) return undefined;
  return new Set(Object.keys(properties ?? {}));
}

/**
 * The answer for an object with at least MAX_LISTED_PROBLEMS names its schema does not admit,
 * found without walking the rest (issue 30: 300,000 unknown argument names cost ~2 s when each
 * became an Ajv error before the list was cut to ten). The required fields it lacks and the
 * first unknown names are described; the other unknown names are only counted, from the key
 * list's length, never looked at. Undefined when there are fewer unknown names: then every
 * problem may matter, and the full validator answers.
 */
export function tooManyNames(value: Record<string, unknown>, admitted: ReadonlySet<string>, required: unknown, root: string): string[] | undefined {
  // One enumeration of the names (the least any count costs); no value is read.
  const keys = Object.keys(value);
  if (keys.length < admitted.size + MAX_LISTED_PROBLEMS) return undefined;
  const unknown: string[] = [];
  for (let i = 0; i < keys.length && unknown.length < MAX_LISTED_PROBLEMS; i++) {
    if (!admitted.has(keys[i])) unknown.push(keys[i]);
  }
  if (unknown.length < MAX_LISTED_PROBLEMS) return undefined;
  let present = 0;
  for (const name of admitted) if (Object.hasOwn(value, name)) present++;
  const missing = Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string' && !Object.hasOwn(value, name)) : [];
  const problems = [
    ...missing.map((name) => `${propertyPath(root, name)}: required field is missing`),
    ...unknown.map((name) => `${propertyPath(root, name)}: unexpected field (not allowed by the schema)`),
  ]
    .slice(0, MAX_LISTED_PROBLEMS)
    .map((line) => clip(line, MAX_PROBLEM_CHARS));
  // Every unknown name is one problem, as the full validator would count it; only the first few were looked at.
  const more = missing.length + (keys.length - present) - problems.length;
  return more > 0 ? [...problems, `… and ${more} more problem${more === 1 ? '' : 's'}`] : problems;
}
