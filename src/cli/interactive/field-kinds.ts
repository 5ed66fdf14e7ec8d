import { isPlainObject } from '../../protocol/content.js';
import { typesOf } from '../args.js';
import { sanitize } from '../../io/sanitize.js';

type Schema = Record<string, unknown>;

/** One option of an enum (a value and how it is shown). */
export interface Choice {
  value: unknown;
  title: string;
}

/** How a field is asked for, read from its schema. */
export type FieldKind =
  | { kind: 'const'; value: unknown }
  | { kind: 'choice'; choices: Choice[] }
  | { kind: 'boolean' }
  | { kind: 'number'; integer: boolean }
  | { kind: 'string' }
  | { kind: 'object'; properties: Array<[string, Schema]>; required: Set<string> }
  | { kind: 'array'; items: Schema }
  | { kind: 'json' };

const MAX_CHOICES = 100;
const MAX_REF_HOPS = 32;

/**
 * Follows local `$ref`s ("#/$defs/x", "#/definitions/x") inside the tool's
 * own schema; anything else (or a loop) is left as it is and asked as JSON.
 */
export function deref(schema: unknown, root: Schema): Schema {
  let current = isPlainObject(schema) ? schema : {};
  for (let hop = 0; hop < MAX_REF_HOPS && typeof current.$ref === 'string'; hop++) {
    const target = pointer(root, current.$ref);
    if (!isPlainObject(target)) return {};
    // Keywords beside $ref (a description, a default) are kept over the target's.
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

function pointer(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

export function kindOf(schema: Schema): FieldKind {
  if (Object.hasOwn(schema, 'const')) return { kind: 'const', value: schema.const };
  const choices = choicesOf(schema);
  if (choices) return { kind: 'choice', choices };
  const types = [...typesOf(schema)].filter((t) => t !== 'null');
  const type = types.length === 1 ? types[0] : undefined;
  switch (type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'integer':
    case 'number':
      return { kind: 'number', integer: type === 'integer' };
    case 'string':
      return { kind: 'string' };
    case 'object': {
      if (!isPlainObject(schema.properties) || Object.keys(schema.properties).length === 0) return { kind: 'json' };
      const properties = Object.entries(schema.properties).filter((e): e is [string, Schema] => isPlainObject(e[1]));
      const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
      return { kind: 'object', properties, required };
    }
    case 'array':
      return { kind: 'array', items: isPlainObject(schema.items) ? schema.items : {} };
    default:
      return { kind: 'json' };
  }
}

/** The options of an enum, or of a oneOf/anyOf made only of titled consts. */
function choicesOf(schema: Schema): Choice[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.slice(0, MAX_CHOICES).map((value) => ({ value, title: shown(value) }));
  const branches = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(branches) && branches.length && branches.every((b) => isPlainObject(b) && Object.hasOwn(b, 'const'))) {
    return (branches as Schema[])
      .slice(0, MAX_CHOICES)
      .map((b) => ({ value: b.const, title: typeof b.title === 'string' ? `${sanitize(b.title)} (${shown(b.const)})` : shown(b.const) }));
  }
  return undefined;
}

function allowsNull(schema: Schema): boolean {
  return typesOf(schema).has('null');
}

/** A short description of what a field takes: "integer, 1 to 10", "string, an email". */
export function typeHint(schema: Schema, kind: FieldKind): string {
  const parts: string[] = [];
  switch (kind.kind) {
    case 'number':
      parts.push(kind.integer ? 'integer' : 'number');
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') parts.push(`${schema.minimum} to ${schema.maximum}`);
      else if (typeof schema.minimum === 'number') parts.push(`at least ${schema.minimum}`);
      else if (typeof schema.maximum === 'number') parts.push(`at most ${schema.maximum}`);
      break;
    case 'string':
      parts.push('text');
      if (typeof schema.format === 'string') parts.push(sanitize(schema.format).slice(0, 40));
      if (typeof schema.maxLength === 'number') parts.push(`up to ${schema.maxLength} characters`);
      break;
    case 'boolean':
      parts.push('y/n');
      break;
    case 'choice':
      parts.push('choose one');
      break;
    case 'json':
      parts.push('JSON');
      break;
    default:
      break;
  }
  if (allowsNull(schema)) parts.push('or null');
  return parts.join(', ');
}

/** Reads one typed answer for a scalar field; `problem` says what to type instead. */
export function parseScalar(text: string, schema: Schema, kind: FieldKind): { value: unknown } | { problem: string } {
  if (text === 'null' && allowsNull(schema)) return { value: null };
  switch (kind.kind) {
    case 'choice': {
      const byNumber = /^\d+$/.test(text) ? kind.choices[Number(text) - 1] : undefined;
      const byValue = kind.choices.find((c) => shown(c.value) === text || c.value === text);
      const pick = byNumber ?? byValue;
      return pick ? { value: pick.value } : { problem: `Choose 1 to ${kind.choices.length}, or type one of the values.` };
    }
    case 'boolean':
      if (/^(y|yes|true|on|1)$/i.test(text)) return { value: true };
      if (/^(n|no|false|off|0)$/i.test(text)) return { value: false };
      return { problem: 'Answer y or n.' };
    case 'number':
      return numberAnswer(text, schema, kind.integer);
    case 'string':
      return stringAnswer(text, schema);
    default:
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { problem: 'Type JSON, e.g. {"key": "value"}, [1, 2] or "text".' };
      }
  }
}

function numberAnswer(text: string, schema: Schema, integer: boolean): { value: number } | { problem: string } {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(n)) return { problem: `Enter ${integer ? 'a whole number' : 'a number'}.` };
  if (integer && !Number.isInteger(n)) return { problem: 'Enter a whole number.' };
  if (typeof schema.minimum === 'number' && n < schema.minimum) return { problem: `Enter at least ${schema.minimum}.` };
  if (typeof schema.maximum === 'number' && n > schema.maximum) return { problem: `Enter at most ${schema.maximum}.` };
  if (typeof schema.exclusiveMinimum === 'number' && n <= schema.exclusiveMinimum) return { problem: `Enter more than ${schema.exclusiveMinimum}.` };
  if (typeof schema.exclusiveMaximum === 'number' && n >= schema.exclusiveMaximum) return { problem: `Enter less than ${schema.exclusiveMaximum}.` };
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && !Number.isInteger(n / schema.multipleOf))
    return { problem: `Enter a multiple of ${schema.multipleOf}.` };
  return { value: n };
}

function stringAnswer(text: string, schema: Schema): { value: string } | { problem: string } {
  const length = [...text].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength)
    return { problem: `Enter at least ${schema.minLength} character${schema.minLength === 1 ? '' : 's'}.` };
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return { problem: `Enter at most ${schema.maxLength} characters.` };
  const format = schema.format;
  const ok =
    format === 'email'
      ? /^[^\s@]+@[^\s@]+$/.test(text)
      : format === 'uri'
        ? URL.canParse(text)
        : format === 'date'
          ? /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text))
          : format === 'date-time'
            ? !Number.isNaN(Date.parse(text)) && /T/.test(text)
            : true;
  if (!ok)
    return { problem: `Enter a valid ${String(format)}${format === 'date' ? ' (YYYY-MM-DD)' : format === 'date-time' ? ' (e.g. 2026-01-31T12:00:00Z)' : ''}.` };
  if (typeof schema.pattern === 'string' && text.length <= 10_000) {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      pattern = undefined; // a pattern this engine cannot read: the server checks it
    }
    if (pattern && !pattern.test(text)) return { problem: `Enter text matching ${sanitize(schema.pattern).slice(0, 80)}.` };
  }
  return { value: text };
}

/** A value as a person reads it in a prompt. */
export function shown(value: unknown): string {
  return sanitize(typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'))
    .replace(/\s+/g, ' ')
    .slice(0, 200);
}
