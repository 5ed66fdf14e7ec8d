import { isPlainObject } from '../protocol/content.js';

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

/** Deeper values are not walked (hostile arguments can nest without end); they are replaced. */
const MAX_DEPTH = 64;
const TOO_DEEP = '[TRUNCATED: nested too deep]';
/** `$ref` hops followed per schema node, so a cycle of references cannot loop. */
const MAX_REF_HOPS = 8;

/*
 * Key names that hold secrets, compared after lower-casing and dropping
 * everything but letters and digits ("API-Key", "api_key" and "apiKey" are one
 * name). A suffix match catches `access_token`, `client_secret`, `db_password`;
 * "token" does not match `maxTokens`, which models' tools use often.
 */
const SECRET_SUFFIXES = [
  'token',
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secretkey',
  'apikey',
  'accesskey',
  'privatekey',
  'credential',
  'credentials',
  'cookie',
  'authorization',
];
const SECRET_WORDS = ['password', 'secret'];
const SECRET_NAMES = new Set(['auth', 'bearer', 'setcookie', 'sessionid', 'xapikey']);

const secretKeyCache = new Map<string, boolean>();

/** True when a property of this name holds a secret by convention (answers cached: tools reuse their keys). */
export function isSecretKey(key: string): boolean {
  let secret = secretKeyCache.get(key);
  if (secret === undefined) {
    const name = key.toLowerCase().replace(/[^a-z0-9]/g, '');
    secret = name !== '' && (SECRET_NAMES.has(name) || SECRET_SUFFIXES.some((s) => name.endsWith(s)) || SECRET_WORDS.some((w) => name.includes(w)));
    if (secretKeyCache.size < 10_000 && key.length <= 128) secretKeyCache.set(key, secret);
  }
  return secret;
}

type Schema = Record<string, unknown>;

/**
 * A copy of `value` in which secrets are replaced with "[REDACTED]": values
 * under secret-looking keys at any depth, and values whose schema (the tool's
 * inputSchema, followed through `properties`, `items`, `additionalProperties`,
 * `allOf`/`anyOf`/`oneOf` and local `$ref`s) says `"x-sensitive": true`.
 */
export function redactArguments(value: unknown, inputSchema?: Schema, options: { maxStringChars?: number; maxEntries?: number } = {}): unknown {
  const root = isPlainObject(inputSchema) && marksSensitive(inputSchema) ? inputSchema : undefined;
  const budget = { left: options.maxEntries ?? MAX_ENTRIES };
  return walk(value, root ? expand([root], root) : [], root, 0, options.maxStringChars ?? Infinity, budget);
}

/**
 * Object fields and array items a copy keeps in all (1,000): every record, log line and span
 * that keeps arguments keeps far less than that many (16 KiB at most in the audit trail), so
 * the walk stops there and says how many more it left out, instead of visiting 300,000 names
 * a hostile call sent (issue 30).
 */
export const MAX_ENTRIES = 1_000;
/** The field that stands for what the budget left out of an object. */
export const LEFT_OUT_KEY = '…';

/**
 * Copy-on-write: a value with nothing to redact, shorten or leave out comes back as the
 * same object, so the common case allocates nothing.
 */
function walk(value: unknown, schemas: Schema[], root: Schema | undefined, depth: number, maxString: number, budget: { left: number }): unknown {
  if (schemas.length && schemas.some((s) => s['x-sensitive'] === true)) return REDACTED;
  if (typeof value === 'string') return value.length > maxString ? shorten(value, maxString) : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      if (budget.left <= 0) {
        // Only the items walked: the rest are counted, never looked at.
        const kept = (copy ?? value).slice(0, index);
        kept.push(`${LEFT_OUT_KEY} ${value.length - index} more items left out`);
        return kept;
      }
      budget.left--;
      const item = value[index];
      const next = walk(
        item,
        root
          ? expand(
              schemas.flatMap((s) => itemSchemas(s, index)),
              root,
            )
          : [],
        root,
        depth + 1,
        maxString,
        budget,
      );
      if (next !== item) (copy ??= value.slice())[index] = next;
    }
    return copy ?? value;
  }
  const keys = Object.keys(value);
  let copy: Record<string, unknown> | undefined;
  // Where the budget may run out here, the fields walked are kept as walked, so cutting reads none again.
  const walked: unknown[] | undefined = keys.length > budget.left ? [] : undefined;
  for (let i = 0; i < keys.length; i++) {
    if (budget.left <= 0) {
      if (!copy) {
        copy = {};
        for (let j = 0; j < i; j++) define(copy, keys[j], walked![j]);
      }
      define(copy, LEFT_OUT_KEY, `${keys.length - i} more fields left out`);
      return copy;
    }
    budget.left--;
    const key = keys[i];
    const child = (value as Record<string, unknown>)[key];
    const next = isSecretKey(key)
      ? REDACTED
      : walk(
          child,
          root
            ? expand(
                schemas.flatMap((s) => propertySchemas(s, key)),
                root,
              )
            : [],
          root,
          depth + 1,
          maxString,
          budget,
        );
    walked?.push(next);
    // Once copying, every field walked goes in: the copy holds exactly what was looked at.
    if (copy) define(copy, key, next);
    else if (next !== child) {
      copy = copyFirst(value as Record<string, unknown>, keys, i);
      define(copy, key, next);
    }
  }
  return copy ?? value;
}

/** The first `count` fields of `value`, as they are. */
function copyFirst(value: Record<string, unknown>, keys: string[], count: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) define(out, keys[i], value[keys[i]]);
  return out;
}

/** A plain data property, even for a key such as `__proto__`. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A long string keeps its start and says how much was left out: the trail is for who did what, not payloads. */
function shorten(text: string, max: number): string {
  return `${text.slice(0, max)}…[${text.length - max} more characters]`;
}

/** The schemas that apply to property `key` of an object described by `schema`. */
function propertySchemas(schema: Schema, key: string): unknown[] {
  const props = schema.properties;
  if (isPlainObject(props) && Object.hasOwn(props, key)) return [props[key]];
  const matched: unknown[] = [];
  const patterns = schema.patternProperties;
  if (isPlainObject(patterns)) {
    for (const [pattern, sub] of Object.entries(patterns)) if (safeTest(pattern, key)) matched.push(sub);
  }
  if (matched.length === 0 && schema.additionalProperties !== undefined) matched.push(schema.additionalProperties);
  return matched;
}

/** The schemas that apply to element `index` of an array described by `schema`. */
function itemSchemas(schema: Schema, index: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  if (prefix && index < prefix.length) return [prefix[index]];
  if (Array.isArray(schema.items)) return schema.additionalItems === undefined ? [] : [schema.additionalItems];
  return schema.items === undefined ? [] : [schema.items];
}

/**
 * Each schema together with what it pulls in: local `$ref` targets and
 * `allOf`/`anyOf`/`oneOf` branches. Each schema is taken once, so reference
 * cycles end; the hop limit bounds long chains.
 */
function expand(schemas: unknown[], root: Schema, seen = new Set<Schema>(), hops = 0): Schema[] {
  const out: Schema[] = [];
  for (const schema of schemas) {
    if (!isPlainObject(schema) || seen.has(schema)) continue;
    seen.add(schema);
    out.push(schema);
    if (hops >= MAX_REF_HOPS) continue;
    const pulled: unknown[] = [];
    if (typeof schema.$ref === 'string') pulled.push(resolveLocalRef(schema.$ref, root));
    for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (Array.isArray(branches)) pulled.push(...branches);
    }
    if (pulled.length) out.push(...expand(pulled, root, seen, hops + 1));
  }
  return out;
}

/** `#/$defs/Name` or `#/definitions/Name` (JSON Pointer escapes included); anything else is not followed. */
function resolveLocalRef(ref: string, root: Schema): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

const marked = new WeakMap<Schema, boolean>();

/** Most schemas mark nothing: then only key names matter, and the schema walk is skipped (checked once per schema). */
function marksSensitive(schema: Schema): boolean {
  let known = marked.get(schema);
  if (known === undefined) {
    try {
      known = JSON.stringify(schema).includes('"x-sensitive":true');
    } catch {
      known = true; // not plain JSON (a cycle): walk it, the walk copes
    }
    marked.set(schema, known);
  }
  return known;
}

const patterns = new Map<string, RegExp | null>();

/** patternProperties keys, compiled once each; an invalid pattern matches nothing. */
function safeTest(pattern: string, key: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    if (patterns.size < 1_000) patterns.set(pattern, re);
  }
  return re?.test(key) ?? false;
}
