import { SchemaError } from './dialect.js';

/**
 * `$ref`s that point at a network URI are never dereferenced (spec basic/index
 * "$ref Resolution"); we refuse such schemas up front instead of letting them
 * validate permissively.
 */
export function checkNoNetworkRefs(schema: unknown): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && isExternal(value)) {
        throw new SchemaError(`"${key}": ${JSON.stringify(value)} points outside the schema; network references are never fetched`);
      }
      visit(value);
    }
  };
  visit(schema);
}

function isExternal(ref: string): boolean {
  if (ref.startsWith('#')) return false;
  // Relative refs without a scheme resolve against the schema's own $id; absolute URIs are external.
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(ref) || ref.startsWith('//');
}
