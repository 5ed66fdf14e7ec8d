import { isPlainObject } from '../../protocol/content.js';
import { compileSchema } from '../../schema/compile.js';
import { sanitize } from '../../io/sanitize.js';
import type { Style } from '../style.js';
import { deref, kindOf, parseScalar, shown, typeHint, type FieldKind } from './field-kinds.js';
import { INTERRUPTED, type Answer, type Completer } from './prompter.js';

type Schema = Record<string, unknown>;

/** How the form talks to the person. */
interface FormIo {
  ask(query: string, completer?: Completer): Promise<Answer>;
  print(text: string): void;
  style: Style;
}

/** The person stopped the form (Ctrl-C, or input ended). */
export const CANCELLED = Symbol('cancelled');
/** An optional field left out. */
const OMIT = Symbol('omit');

const MAX_DEPTH = 8;
const MAX_ITEMS = 1_000;

/**
 * Asks for a tool's arguments field by field, from its input schema:
 * required fields first, then the optional ones (Enter leaves one out, or
 * takes its default); enums as numbered choices (Tab completes them), nested
 * objects field by field, arrays item by item (or as JSON at once), anything
 * else as JSON. Each answer is checked as it is typed, and the whole object
 * against the schema at the end, before anything is sent.
 */
export async function askArguments(
  inputSchema: Schema,
  io: FormIo,
  previous: Record<string, unknown> = {},
): Promise<Record<string, unknown> | typeof CANCELLED> {
  const root = inputSchema;
  const validate = validatorFor(inputSchema);
  let earlier = previous;
  for (;;) {
    const kind = kindOf(deref(root, root));
    if (kind.kind !== 'object') {
      // A schema with no properties: nothing to ask.
      return {};
    }
    const value = await askObject('', kind, root, io, earlier, 0);
    if (value === CANCELLED) return CANCELLED;
    const args = value === OMIT ? {} : (value as Record<string, unknown>);
    const problems = validate(args);
    if (!problems.length) return args;
    io.print(`${io.style.red('The arguments do not match the schema:')}\n${problems.map((p) => `  - ${sanitize(p)}`).join('\n')}\n`);
    for (;;) {
      const choice = await io.ask('[e]dit them, [s]end anyway (the server will check), or [c]ancel? ', words(['edit', 'send', 'cancel']));
      if (typeof choice !== 'string') return CANCELLED;
      const c = choice.trim().toLowerCase();
      if (c === 'e' || c === 'edit' || c === '') break;
      if (c === 's' || c === 'send') return args;
      if (c === 'c' || c === 'cancel') return CANCELLED;
    }
    earlier = args;
  }
}

function validatorFor(schema: Schema): (value: unknown) => string[] {
  try {
    const validator = compileSchema(schema);
    return (value) => {
      const outcome = validator(value);
      return outcome.ok ? [] : outcome.problems;
    };
  } catch {
    // A schema the validator cannot compile: the server will judge the arguments.
    return () => [];
  }
}

type Value = unknown | typeof OMIT | typeof CANCELLED;

async function askObject(
  path: string,
  kind: Extract<FieldKind, { kind: 'object' }>,
  root: Schema,
  io: FormIo,
  previous: Record<string, unknown>,
  depth: number,
): Promise<Value> {
  const out: Record<string, unknown> = {};
  // Required fields first, in the order the schema lists them, then the optional ones.
  const ordered = [...kind.properties.filter(([n]) => kind.required.has(n)), ...kind.properties.filter(([n]) => !kind.required.has(n))];
  for (const [name, raw] of ordered) {
    const schema = deref(raw, root);
    const fieldPath = path ? `${path}.${name}` : name;
    const earlier = Object.hasOwn(previous, name) ? previous[name] : undefined;
    const value = await askField(fieldPath, schema, kind.required.has(name), earlier, root, io, depth + 1);
    if (value === CANCELLED) return CANCELLED;
    // defineProperty: a property named "__proto__" is an argument, not a prototype.
    if (value !== OMIT) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

async function askField(path: string, schema: Schema, required: boolean, earlier: unknown, root: Schema, io: FormIo, depth: number): Promise<Value> {
  const kind = depth > MAX_DEPTH ? ({ kind: 'json' } as const) : kindOf(schema);
  const fallback = earlier !== undefined ? earlier : schema.default;
  if (kind.kind === 'const') {
    io.print(io.style.dim(`${sanitize(path)}: ${shown(kind.value)} (fixed)\n`));
    return kind.value;
  }
  const description = typeof schema.description === 'string' ? sanitize(schema.description).trim() : '';
  if (description) io.print(io.style.dim(`  ${description.split('\n').join('\n  ')}\n`));
  if (kind.kind === 'object') return askNested(path, kind, required, fallback, root, io, depth);
  if (kind.kind === 'array') return askArray(path, kind.items, schema, required, fallback, root, io, depth);
  if (kind.kind === 'choice') io.print(`${kind.choices.map((c, i) => `  ${i + 1}) ${c.title}`).join('\n')}\n`);
  const query = label(path, schema, kind, required, fallback, io.style);
  const completer = kind.kind === 'choice' ? words(kind.choices.map((c) => shown(c.value))) : kind.kind === 'boolean' ? words(['yes', 'no']) : undefined;
  for (;;) {
    const answer = await io.ask(query, completer);
    if (typeof answer !== 'string') return CANCELLED;
    const text = kind.kind === 'string' ? answer : answer.trim();
    if (text === '') {
      if (fallback !== undefined) return fallback;
      if (!required) return OMIT;
      if (kind.kind !== 'string') {
        io.print(`    ${io.style.red('✗')} An answer is required.\n`);
        continue;
      }
    }
    const parsed = parseScalar(text, schema, kind);
    if ('value' in parsed) return parsed.value;
    io.print(`    ${io.style.red('✗')} ${parsed.problem}\n`);
  }
}

/** A nested object: optional ones are offered first, then asked field by field. */
async function askNested(
  path: string,
  kind: Extract<FieldKind, { kind: 'object' }>,
  required: boolean,
  fallback: unknown,
  root: Schema,
  io: FormIo,
  depth: number,
): Promise<Value> {
  if (!required) {
    const fill = await yesNo(`${io.style.bold(sanitize(path))} (object, optional): fill it in? [y/N] `, false, io);
    if (fill === CANCELLED) return CANCELLED;
    if (!fill) return fallback !== undefined ? fallback : OMIT;
  } else {
    io.print(`${io.style.bold(sanitize(path))}:\n`);
  }
  return askObject(path, kind, root, io, isPlainObject(fallback) ? fallback : {}, depth);
}

/** An array item by item: Enter on an empty item ends it; `[…]` JSON typed at the first item is the whole array. */
async function askArray(
  path: string,
  itemsRaw: Schema,
  schema: Schema,
  required: boolean,
  fallback: unknown,
  root: Schema,
  io: FormIo,
  depth: number,
): Promise<Value> {
  const items = deref(itemsRaw, root);
  const itemKind = depth > MAX_DEPTH ? ({ kind: 'json' } as const) : kindOf(items);
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const max = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : MAX_ITEMS, MAX_ITEMS);
  const bounds = min && max < MAX_ITEMS ? `, ${min} to ${max} items` : min ? `, at least ${min}` : max < MAX_ITEMS ? `, at most ${max}` : '';
  const what = itemKind.kind === 'object' ? 'objects' : itemKind.kind === 'choice' ? 'choices' : typeHint(items, itemKind) || 'values';
  const fallbackText = fallback !== undefined ? ` [default: ${shown(fallback)}]` : '';
  io.print(
    `${io.style.bold(sanitize(path))} (a list of ${what}${bounds}${required ? '' : ', optional'})${fallbackText}: one item at a time, an empty item ends the list, or type it all as JSON […]\n`,
  );
  if (itemKind.kind === 'choice') io.print(`${itemKind.choices.map((c, i) => `  ${i + 1}) ${c.title}`).join('\n')}\n`);
  const list: unknown[] = [];
  while (list.length < max) {
    const itemPath = `${path}[${list.length}]`;
    if (itemKind.kind === 'object') {
      const more = await yesNo(`add an item to ${sanitize(path)}? [${list.length < min ? 'Y/n' : 'y/N'}] `, list.length < min, io);
      if (more === CANCELLED) return CANCELLED;
      if (!more) break;
      const item = await askObject(itemPath, itemKind, root, io, {}, depth + 1);
      if (item === CANCELLED) return CANCELLED;
      list.push(item === OMIT ? {} : item);
      continue;
    }
    const completer =
      itemKind.kind === 'choice' ? words(itemKind.choices.map((c) => shown(c.value))) : itemKind.kind === 'boolean' ? words(['yes', 'no']) : undefined;
    const answer = await io.ask(`  ${sanitize(itemPath)}: `, completer);
    if (typeof answer !== 'string') return CANCELLED;
    const text = itemKind.kind === 'string' ? answer : answer.trim();
    if (text === '') {
      if (list.length === 0 && fallback !== undefined) return fallback;
      if (list.length === 0 && !required) return OMIT;
      if (list.length < min) {
        io.print(`    ${io.style.red('✗')} The list needs at least ${min} item${min === 1 ? '' : 's'}.\n`);
        continue;
      }
      break;
    }
    if (list.length === 0 && text.trimStart().startsWith('[')) {
      try {
        const whole = JSON.parse(text);
        if (Array.isArray(whole)) return whole;
      } catch {
        // not JSON: an item that starts with "["
      }
    }
    const parsed = parseScalar(text, items, itemKind);
    if ('value' in parsed) list.push(parsed.value);
    else io.print(`    ${io.style.red('✗')} ${parsed.problem}\n`);
  }
  return list;
}

async function yesNo(query: string, byDefault: boolean, io: FormIo): Promise<boolean | typeof CANCELLED> {
  for (;;) {
    const answer = await io.ask(query, words(['yes', 'no']));
    if (typeof answer !== 'string') return CANCELLED;
    const text = answer.trim();
    if (text === '') return byDefault;
    if (/^(y|yes)$/i.test(text)) return true;
    if (/^(n|no)$/i.test(text)) return false;
    io.print(`    ${io.style.red('✗')} Answer y or n.\n`);
  }
}

function label(path: string, schema: Schema, kind: FieldKind, required: boolean, fallback: unknown, style: Style): string {
  const title = typeof schema.title === 'string' && schema.title.trim() ? ` "${sanitize(schema.title).replace(/\s+/g, ' ').slice(0, 60)}"` : '';
  const hint = typeHint(schema, kind);
  const extras = [hint, required ? '' : 'optional'].filter(Boolean).join(', ');
  const byDefault = fallback !== undefined ? ` [default: ${shown(fallback)}]` : '';
  return `${style.bold(sanitize(path))}${title}${extras ? ` (${extras})` : ''}${byDefault}: `;
}

/** Completes the whole answer from a fixed list of words. */
export function words(list: string[]): Completer {
  return (line) => {
    const hits = list.filter((w) => w.startsWith(line) && sanitize(w) === w);
    return [hits.length ? hits : [], line];
  };
}

export { INTERRUPTED };
