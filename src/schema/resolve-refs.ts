/**
 * What the references of one schema can point at, gathered by the walk in
 * refs.ts, and whether each one finds its target as Ajv would look for it.
 * Anything that cannot be judged here (a URI that does not parse) is left
 * to Ajv, which then fails on the validator's first call instead.
 */

/** Where a value sits: a subschema, a list or map of them, a value only searched for `$id`s (an unknown keyword), or instance data such as `enum`. */
export type Place = 'schema' | 'list' | 'map' | 'scanned' | 'data';

interface Reference {
  keyword: '$ref' | '$dynamicRef';
  ref: string;
  /** JSON Pointer of the keyword, for messages. */
  ptr: string;
  /** The URI the reference resolves against: the nearest `$id`. */
  base: string;
}

interface Site {
  ptr: string;
  node: Record<string, unknown>;
}

// Without a root `$id`, relative references resolve against this stand-in.
const STAND_IN_BASE = 'x-toolwright:/root.json';
// Ajv's own rule for anchor names (compile/resolve.ts).
const ANCHOR = /^[a-z_][-a-z0-9._]*$/i;

export class ReferenceTargets {
  readonly rootBase = STAND_IN_BASE;
  private readonly rootHasId: boolean;
  /** Schema resources by URI (no fragment): the root and every `$id`. */
  private readonly resources = new Map<string, Site>();
  /** Anchors by absolute URI (`resource#name`). */
  private readonly anchors = new Map<string, Site>();
  /** The root's anchors: Ajv does not register them for `$ref` (it cannot compile one), only `$dynamicRef` reaches them. */
  private readonly rootAnchors = new Set<string>();
  private readonly refs: Reference[] = [];
  private unparsedId = false;

  constructor(root: Record<string, unknown>) {
    this.rootHasId = typeof root.$id === 'string';
  }

  /** Records a node's `$id` and anchors; returns the base URI its subschemas resolve against. */
  register(node: Record<string, unknown>, place: Place, ptr: string, base: string, note: (problem: string | undefined) => void): string {
    const isRoot = ptr === '';
    const claim = (map: Map<string, Site>, key: string, keyword: string, value: string): void => {
      const first = map.get(key);
      if (!first) map.set(key, { ptr, node });
      // Ajv refuses two schemas under one URI. In a scanned value it might not, so only subschemas are held to it.
      else if (place === 'schema' && !isRoot) note(`${ptr}/${keyword}: ${JSON.stringify(value)} is already declared at ${first.ptr || '/'}`);
    };
    if (typeof node.$id === 'string') {
      const id = resolveUri(node.$id, base);
      if (id === undefined) this.unparsedId = true;
      else {
        const [resource, fragment] = splitFragment(id);
        if (resource !== base || isRoot) claim(this.resources, resource, '$id', node.$id);
        base = resource;
        // draft-07 names anchors with `$id: "#name"`.
        if (fragment && !fragment.startsWith('/')) {
          if (isRoot) this.rootAnchors.add(id);
          else claim(this.anchors, id, '$id', node.$id);
        }
      }
    }
    if (isRoot && !this.resources.has(base)) this.resources.set(base, { ptr, node });
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const name = node[keyword];
      if (typeof name !== 'string') continue;
      const key = resolveUri(`#${name}`, base);
      if (key === undefined) continue;
      if (isRoot) this.rootAnchors.add(key);
      else if (place === 'schema' && !ANCHOR.test(name)) note(`${ptr}/${keyword}: ${JSON.stringify(name)} is not a valid anchor name`);
      else claim(this.anchors, key, keyword, name);
    }
    return base;
  }

  refer(reference: Reference): void {
    this.refs.push(reference);
  }

  /** The first reference that leads nowhere, described; undefined when all resolve. Call once the whole schema is registered. */
  unresolved(): string | undefined {
    for (const reference of this.refs) {
      const problem = this.problemWith(reference);
      if (problem) return problem;
    }
    return undefined;
  }

  private problemWith({ keyword, ref, ptr, base }: Reference): string | undefined {
    const shown = `${ptr}: ${JSON.stringify(ref)}`;
    // Ajv's $dynamicRef only knows anchors and pointers of the schema at hand.
    if (keyword === '$dynamicRef' && !ref.startsWith('#')) return `${shown} is not supported; a "$dynamicRef" must be a fragment such as "#name"`;
    const target = resolveUri(ref, base);
    if (target === undefined) return undefined;
    const [uri, fragment] = splitFragment(target);
    const resource = this.resources.get(uri);
    if (!resource) return this.unparsedId ? undefined : `${shown} matches no "$id" in the schema`;
    if (fragment === '' || fragment === '/') {
      // Ajv compiles a reference to the whole schema only when written "#" and the root has an $id.
      if (keyword === '$ref' && resource.ptr === '' && !(this.rootHasId && (ref === '#' || ref === '#/'))) {
        return `${shown} refers to the whole schema, which the validator supports only as "#" and when the root schema has an "$id"`;
      }
      return undefined;
    }
    if (fragment.startsWith('/')) {
      const found = pointsAtSomething(resource.node, fragment);
      if (found === undefined) return `${shown} is not a valid URI fragment`;
      return found ? undefined : `${shown} does not resolve: the schema has nothing at that path`;
    }
    if (this.anchors.has(target) || (keyword === '$dynamicRef' && this.rootAnchors.has(target))) return undefined;
    if (this.rootAnchors.has(target))
      return `${shown} names an anchor of the root schema, which the validator cannot resolve; use "#" and give the root an "$id"`;
    const elsewhere = [...this.anchors.keys()].some((key) => splitFragment(key)[1] === splitFragment(target)[1]);
    return `${shown} matches no "$anchor" in the schema${elsewhere ? ' (one inside a subschema with its own "$id" is named through that "$id")' : ''}`;
  }
}

/** A `pattern` or `patternProperties` key must compile as Ajv compiles it: a Unicode regular expression. */
export function checkPattern(pattern: string, ptr: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (err) {
    return `${ptr}: ${(err as Error).message}`;
  }
}

/** The absolute form of `ref` against `base`, or undefined when it cannot be parsed (then Ajv has the last word). */
function resolveUri(ref: string, base: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

function splitFragment(uri: string): [string, string] {
  const hash = uri.indexOf('#');
  return hash < 0 ? [uri, ''] : [uri.slice(0, hash), uri.slice(hash + 1)];
}

/** Follows a JSON Pointer fragment (percent-encoded, with ~0 and ~1) from `node`; undefined if it is not valid percent-encoding. */
function pointsAtSomething(node: unknown, fragment: string): boolean | undefined {
  for (const raw of fragment.slice(1).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}
