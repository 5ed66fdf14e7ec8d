import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isPlainObject } from '../../../protocol/content.js';
import { PromptDefinitionError } from './compile.js';
import type { Prompt, PromptArgument, PromptMessage } from './prompt.js';

const MAX_FILE_BYTES = 256 * 1024;
const MAX_FILES = 1_000;
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const ROLE_LINE = /^<!--\s*(user|assistant)\s*-->\s*$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/**
 * A folder of prompt files (config `prompts.folder`): every `*.md` file in
 * it (not below it), in name order, is one prompt. The format:
 *
 *     ---
 *     name: code_review            # default: the file name without .md
 *     title: Request code review
 *     description: Asks the model to review code
 *     arguments:
 *       - name: code
 *         description: The code to review
 *         required: true
 *       - name: language
 *         enum: [python, typescript, go]   # checked, and offered by completion
 *     ---
 *     Please review this {{language}} code:
 *
 *     {{code}}
 *     <!-- assistant -->
 *     I will look at naming, errors and tests first.
 *
 * The body is the messages: text before any role line is a user message, a
 * line `<!-- user -->` or `<!-- assistant -->` starts the next one.
 * `{{name}}` is replaced by the argument's value (an optional argument left
 * out by the empty string), once, with nothing in the value interpreted; a
 * placeholder naming no declared argument is an error at load time.
 */
export function loadPromptFolder(folder: string): Prompt[] {
  const names = readdirSync(folder)
    .filter((n) => n.toLowerCase().endsWith('.md'))
    .sort();
  if (names.length > MAX_FILES) throw new Error(`${folder} holds ${names.length} prompt files; at most ${MAX_FILES} are loaded`);
  const prompts: Prompt[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    const stat = statSync(file);
    if (!stat.isFile()) continue;
    if (stat.size > MAX_FILE_BYTES) throw new Error(`${name} is ${stat.size} bytes; a prompt file may have at most ${MAX_FILE_BYTES}`);
    prompts.push(parsePromptFile(readFileSync(file, 'utf8'), name));
  }
  return prompts;
}

/** One prompt file's prompt; throws a PromptDefinitionError that names the file and the problem. */
export function parsePromptFile(text: string, fileName: string): Prompt {
  const fallbackName = path.basename(fileName, path.extname(fileName));
  const match = FRONT_MATTER.exec(text);
  let meta: Record<string, unknown> = {};
  if (match) {
    let parsed: unknown;
    try {
      parsed = (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(match[1]);
    } catch (err) {
      throw new PromptDefinitionError(fallbackName, `${fileName}: the front matter is not YAML (${(err as Error).message.split('\n')[0]})`);
    }
    if (parsed !== null && parsed !== undefined && !isPlainObject(parsed))
      throw new PromptDefinitionError(fallbackName, `${fileName}: the front matter must be a mapping`);
    meta = (parsed as Record<string, unknown> | null) ?? {};
  }
  const name = meta.name ?? fallbackName;
  const fail = (why: string) => new PromptDefinitionError(name, `${fileName}: ${why}`);
  for (const key of Object.keys(meta)) {
    if (!['name', 'title', 'description', 'arguments'].includes(key))
      throw fail(`unknown front matter key ${JSON.stringify(key)} (name, title, description, arguments)`);
  }
  const declared = argumentsOf(meta.arguments, fail);
  const messages = splitMessages(match ? text.slice(match[0].length) : text);
  if (messages.length === 0) throw fail('the prompt has no text');
  const known = new Set(declared.map((a) => a.name));
  for (const m of messages) {
    for (const [, placeholder] of m.text.matchAll(PLACEHOLDER)) {
      if (!known.has(placeholder)) throw fail(`{{${placeholder}}} names no declared argument`);
    }
  }
  const withEnum = declared.some((a) => a.enum);
  const prompt: Prompt = {
    name: name as string,
    ...(meta.title !== undefined ? { title: meta.title as string } : {}),
    ...(meta.description !== undefined ? { description: meta.description as string } : {}),
    get: (args) => messages.map((m): PromptMessage => ({ role: m.role, content: m.text.replace(PLACEHOLDER, (_, key: string) => args[key] ?? '') })),
  };
  // Arguments with allowed values become a schema (checked, and completed from the enum); the rest a plain list.
  if (withEnum) prompt.argumentsSchema = schemaOf(declared);
  else if (declared.length) prompt.arguments = declared.map(({ enum: _e, ...a }) => a);
  return prompt;
}

type FileArgument = PromptArgument & { enum?: string[] };

function argumentsOf(value: unknown, fail: (why: string) => Error): FileArgument[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw fail('"arguments" must be a list of { name, description?, required?, enum? }');
  return value.map((a, i) => {
    if (!isPlainObject(a) || typeof a.name !== 'string') throw fail(`arguments[${i}] needs a "name"`);
    for (const key of Object.keys(a))
      if (!['name', 'title', 'description', 'required', 'enum'].includes(key)) throw fail(`arguments[${i}] has an unknown key ${JSON.stringify(key)}`);
    if (a.enum !== undefined && !(Array.isArray(a.enum) && a.enum.length > 0 && a.enum.every((v) => typeof v === 'string')))
      throw fail(`arguments[${i}].enum must be a list of strings`);
    return a as unknown as FileArgument;
  });
}

function schemaOf(args: FileArgument[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const a of args) {
    properties[a.name] = {
      type: 'string',
      ...(a.title !== undefined ? { title: a.title } : {}),
      ...(a.description !== undefined ? { description: a.description } : {}),
      ...(a.enum ? { enum: a.enum } : {}),
    };
  }
  const required = args.filter((a) => a.required === true).map((a) => a.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function splitMessages(body: string): Array<{ role: 'user' | 'assistant'; text: string }> {
  const messages: Array<{ role: 'user' | 'assistant'; lines: string[] }> = [{ role: 'user', lines: [] }];
  for (const line of body.split(/\r?\n/)) {
    const role = ROLE_LINE.exec(line);
    if (role) messages.push({ role: role[1] as 'user' | 'assistant', lines: [] });
    else messages[messages.length - 1].lines.push(line);
  }
  return messages.map((m) => ({ role: m.role, text: m.lines.join('\n').trim() })).filter((m) => m.text !== '');
}
