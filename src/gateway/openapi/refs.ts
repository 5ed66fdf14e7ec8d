import { isObject, type JsonObject } from './types.js';

/** A reference this gateway will not follow: to another file or over the network. */
export class RefusedReference extends Error {
  override readonly name = 'RefusedReference';
}

/** A local reference that leads nowhere, or a chain of them that never ends. */
export class BrokenReference extends Error {
  override readonly name = 'BrokenReference';
}

const MAX_CHAIN = 32;
const MAX_SHOWN = 120;

export function showRef(ref: string): string {
  return JSON.stringify(ref.length > MAX_SHOWN ? `${ref.slice(0, MAX_SHOWN)}…` : ref);
}

/**
 * Resolves `$ref`s inside the one document (JSON Pointers after `#`, RFC 6901 with the URI
 * fragment's percent-encoding). Anything else — `other.yaml#/x`, `https://…` — is refused and
 * never read: the document must not make the gateway open files or reach the network.
 */
export class LocalRefs {
  constructor(private readonly doc: JsonObject) {}

  /** The value a `$ref` points to. */
  resolve(ref: string): unknown {
    if (!ref.startsWith('#')) {
      throw new RefusedReference(`$ref ${showRef(ref)} points outside the document; only local references (#/components/…) are followed, never files or URLs`);
    }
    let node: unknown = this.doc;
    const pointer = ref.slice(1);
    if (pointer === '') return node;
    if (!pointer.startsWith('/')) throw new BrokenReference(`$ref ${showRef(ref)} is not a JSON Pointer (#/…)`);
    for (const raw of pointer.slice(1).split('/')) {
      let key: string;
      try {
        key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      } catch {
        throw new BrokenReference(`$ref ${showRef(ref)} is not a valid URI fragment`);
      }
      // Own properties only: "__proto__" or "constructor" in a pointer must not reach the prototype.
      if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(key) && Number(key) < node.length) node = node[Number(key)];
      else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
      else throw new BrokenReference(`$ref ${showRef(ref)} points to nothing in the document`);
    }
    return node;
  }

  /** Follows `$ref` until an object without one (parameters, request bodies, responses, security schemes). */
  follow(value: unknown): unknown {
    let node = value;
    for (let i = 0; isObject(node) && typeof node.$ref === 'string'; i++) {
      if (i >= MAX_CHAIN) throw new BrokenReference(`$ref ${showRef(node.$ref)} starts a chain of references that does not end`);
      node = this.resolve(node.$ref);
    }
    return node;
  }
}
