import type { ElicitResult } from '../client/inputs/types.js';
import { isPlainObject } from '../protocol/content.js';
import { sanitize } from '../io/sanitize.js';

/** Reads one answer after showing `query`; undefined when the user ended input (Ctrl-D, Ctrl-C). */
export type Ask = (query: string) => Promise<string | undefined>;

type Value = string | number | boolean | string[];
const ENDED = Symbol('input ended');
const MAX_OPTIONS = 50;

/**
 * Fills a form-mode elicitation at a terminal (client/elicitation.mdx): the
 * server's message, then one prompt per field (flat primitives only), then a
 * review before anything is sent, since clients MUST let users review and
 * change their answers. Everything the server wrote is sanitized first.
 */
export async function fillForm(params: Record<string, unknown>, ask: Ask, print: (text: string) => void): Promise<ElicitResult> {
  print(`\nThe server asks: ${sanitize(String(params.message))}\n`);
  const schema = isPlainObject(params.requestedSchema) ? params.requestedSchema : {};
  const fields = Object.entries(isPlainObject(schema.properties) ? schema.properties : {}).filter((entry): entry is [string, Record<string, unknown>] =>
    isPlainObject(entry[1]),
  );
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  // A lone yes/no question is its own review: the answer is the decision.
  const lonePrompt = fields.length === 1 && fields[0][1].type === 'boolean';
  let previous: Record<string, Value> = {};
  for (;;) {
    const content: Record<string, Value> = {};
    for (const [name, field] of fields) {
      // When editing, the earlier answer is the default.
      const value = await askField(name, field, required.has(name), previous[name] ?? field.default, ask, print);
      if (value === ENDED) return { action: 'cancel' };
      if (value !== undefined) content[name] = value;
    }
    if (lonePrompt) return { action: 'accept', content };
    const review = fields.filter(([n]) => Object.hasOwn(content, n)).map(([n, f]) => `  ${label(n, f)}: ${shown(content[n], choices(f))}`);
    if (review.length) print(`${review.join('\n')}\n`);
    previous = content;
    for (;;) {
      const choice = (await ask('Send these answers? [y]es, [n]o (decline), [e]dit: '))?.trim().toLowerCase();
      if (choice === undefined) return { action: 'cancel' };
      if (choice === 'y' || choice === 'yes' || choice === '') return { action: 'accept', content };
      if (choice === 'n' || choice === 'no') return { action: 'decline' };
      if (choice === 'e' || choice === 'edit') break;
    }
  }
}

/** Asks for one field until the answer is valid; undefined leaves an optional field out. */
async function askField(
  name: string,
  field: Record<string, unknown>,
  required: boolean,
  fallback: unknown,
  ask: Ask,
  print: (text: string) => void,
): Promise<Value | undefined | typeof ENDED> {
  const options = choices(field);
  const yesNo = !options && field.type === 'boolean';
  // A yes/no question shows its default the way shells do: the capital letter is what Enter answers.
  const hint = yesNo
    ? fallback === true
      ? ' [Y/n]'
      : fallback === false
        ? ' [y/N]'
        : ' [y/n]'
    : !options && (field.type === 'number' || field.type === 'integer')
      ? ` (${field.type})`
      : '';
  const defaultNote = fallback !== undefined && !(yesNo && typeof fallback === 'boolean') ? ` [default: ${shown(fallback, options)}]` : '';
  const query = `${label(name, field)}${hint}${defaultNote}${required ? '' : ' (optional)'}: `;
  if (typeof field.description === 'string') print(`  ${sanitize(field.description)}\n`);
  if (options) print(`${options.map((o, i) => `  ${i + 1}) ${o.title}`).join('\n')}\n`);
  for (;;) {
    const raw = await ask(query);
    if (raw === undefined) return ENDED;
    const text = raw.trim();
    if (text === '') {
      if (fallback !== undefined) return fallback as Value;
      if (!required) return undefined;
      print('  An answer is required.\n');
      continue;
    }
    const parsed = parseValue(text, field, options);
    if (typeof parsed === 'object' && parsed !== null && 'problem' in parsed) print(`  ${parsed.problem}\n`);
    else return parsed;
  }
}

interface Choice {
  value: string;
  title: string;
}

/**
 * The options of an enum field, single or multi-select, each shown by its title
 * and answered with its value: titles from `oneOf`/`anyOf` of `const` + `title`
 * (the current spec's titled enums) or from the legacy `enumNames`, which runs
 * beside `enum` (2025-06-18 EnumSchema, LegacyTitledEnumSchema since).
 */
function choices(field: Record<string, unknown>): Choice[] | undefined {
  const source = field.type === 'array' && isPlainObject(field.items) ? field.items : field;
  const list: Choice[] = [];
  const names = Array.isArray(source.enumNames) ? (source.enumNames as unknown[]) : [];
  if (Array.isArray(source.enum)) {
    source.enum.forEach((v, i) => {
      const name = names[i];
      if (typeof v === 'string') list.push({ value: v, title: sanitize(typeof name === 'string' && name.trim() ? name : v) });
    });
  }
  const titled = source.oneOf ?? source.anyOf;
  if (Array.isArray(titled)) {
    for (const o of titled)
      if (isPlainObject(o) && typeof o.const === 'string') list.push({ value: o.const, title: sanitize(typeof o.title === 'string' ? o.title : o.const) });
  }
  return list.length ? list.slice(0, MAX_OPTIONS) : undefined;
}

function parseValue(text: string, field: Record<string, unknown>, options: Choice[] | undefined): Value | { problem: string } {
  if (options) {
    const pick = (t: string) => options[Number(t) - 1]?.value ?? options.find((o) => o.value === t)?.value;
    if (field.type !== 'array') return pick(text) ?? { problem: `Choose 1 to ${options.length}.` };
    const picked = text.split(',').map((t) => pick(t.trim()));
    if (picked.some((p) => p === undefined)) return { problem: `Choose numbers from 1 to ${options.length}, separated by commas.` };
    const unique = [...new Set(picked as string[])];
    if (typeof field.minItems === 'number' && unique.length < field.minItems) return { problem: `Choose at least ${field.minItems}.` };
    if (typeof field.maxItems === 'number' && unique.length > field.maxItems) return { problem: `Choose at most ${field.maxItems}.` };
    return unique;
  }
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return true;
      if (/^(n|no|false)$/i.test(text)) return false;
      return { problem: 'Answer y or n.' };
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n)))
        return { problem: `Enter ${field.type === 'integer' ? 'a whole number' : 'a number'}.` };
      if (typeof field.minimum === 'number' && n < field.minimum) return { problem: `Enter at least ${field.minimum}.` };
      if (typeof field.maximum === 'number' && n > field.maximum) return { problem: `Enter at most ${field.maximum}.` };
      return n;
    }
    default:
      if (typeof field.minLength === 'number' && text.length < field.minLength) return { problem: `Enter at least ${field.minLength} characters.` };
      if (typeof field.maxLength === 'number' && text.length > field.maxLength) return { problem: `Enter at most ${field.maxLength} characters.` };
      return formatProblem(text, field.format) ?? text;
  }
}

function formatProblem(text: string, format: unknown): { problem: string } | undefined {
  const ok =
    format === 'email'
      ? /^[^\s@]+@[^\s@]+$/.test(text)
      : format === 'uri'
        ? URL.canParse(text)
        : format === 'date'
          ? /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text))
          : format === 'date-time'
            ? !Number.isNaN(Date.parse(text))
            : true;
  return ok ? undefined : { problem: `Enter a valid ${String(format)}.` };
}

/** A value as the user knows it: an option by its title. */
function shown(value: unknown, options: Choice[] | undefined): string {
  const titleOf = (v: unknown) => options?.find((o) => o.value === v)?.title;
  if (options) return Array.isArray(value) ? value.map((v) => titleOf(v) ?? sanitize(String(v))).join(', ') : (titleOf(value) ?? sanitize(String(value)));
  return sanitize(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
}

function label(name: string, field: Record<string, unknown>): string {
  return sanitize(typeof field.title === 'string' ? field.title : name)
    .replace(/\s+/g, ' ')
    .slice(0, 200);
}
