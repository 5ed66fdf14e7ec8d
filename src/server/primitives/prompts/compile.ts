import type { ScopedEntry } from '../../../policy/auth/scope-policy.js';
import { isPlainObject } from '../../../protocol/content.js';
import { toolNameProblem } from '../../../protocol/names.js';
import { iconsAndMetaProblem, scopeFieldsProblem, timeoutProblem, titleAndDescriptionProblem } from '../../definition-fields.js';
import { compileArgsSchema, type ArgsSchema } from '../args-schema.js';
import type { Prompt, PromptArgument } from './prompt.js';

export class PromptDefinitionError extends Error {
  constructor(name: unknown, why: string) {
    super(`Invalid prompt ${typeof name === 'string' && name ? JSON.stringify(name) : '(unnamed)'}: ${why}`);
    this.name = 'PromptDefinitionError';
  }
}

/** A prompt ready to serve: arguments checked and compiled, its `prompts/list` entry serialized, once. */
export interface CompiledPrompt {
  readonly prompt: Prompt<unknown>;
  readonly name: string;
  readonly wireJson: string;
  readonly arguments: readonly PromptArgument[];
  readonly args: ArgsSchema;
  /** What the scope policy keys it by (its name) and what it says of its own scopes. */
  readonly scope: ScopedEntry;
}

export function compilePrompt(prompt: Prompt<unknown>): CompiledPrompt {
  const name = prompt?.name;
  const nameProblem = toolNameProblem(name);
  if (nameProblem) throw new PromptDefinitionError(name, nameProblem);
  if (typeof prompt.get !== 'function') throw new PromptDefinitionError(name, 'a get function is required');
  const fieldProblem = titleAndDescriptionProblem(prompt) ?? iconsAndMetaProblem(prompt) ?? timeoutProblem(prompt.timeoutMs) ?? scopeFieldsProblem(prompt);
  if (fieldProblem) throw new PromptDefinitionError(name, fieldProblem);
  if (prompt.arguments !== undefined && prompt.argumentsSchema !== undefined)
    throw new PromptDefinitionError(name, 'give "arguments" or "argumentsSchema", not both');

  let args: ArgsSchema;
  let list: PromptArgument[];
  try {
    if (prompt.argumentsSchema !== undefined) {
      args = compileArgsSchema(prompt.argumentsSchema, 'arguments');
      list = argumentsOf(args.json);
    } else {
      list = checkArgumentList(prompt.arguments ?? []);
      args = compileArgsSchema(schemaOf(list), 'arguments');
    }
  } catch (err) {
    throw new PromptDefinitionError(name, (err as Error).message);
  }
  if (prompt.complete !== undefined) {
    if (!isPlainObject(prompt.complete)) throw new PromptDefinitionError(name, '"complete" must map argument names to functions');
    for (const [arg, fn] of Object.entries(prompt.complete)) {
      if (!list.some((a) => a.name === arg)) throw new PromptDefinitionError(name, `"complete" names ${JSON.stringify(arg)}, which is not an argument`);
      if (typeof fn !== 'function') throw new PromptDefinitionError(name, `complete.${arg} must be a function`);
    }
  }

  const wire: Record<string, unknown> = { name };
  if (prompt.title !== undefined) wire.title = prompt.title;
  if (prompt.description !== undefined) wire.description = prompt.description;
  if (list.length) wire.arguments = list;
  if (prompt.icons !== undefined) wire.icons = prompt.icons;
  if (prompt._meta !== undefined) wire._meta = prompt._meta;
  return { prompt, name, wireJson: JSON.stringify(wire), arguments: list, args, scope: { key: name, own: prompt } };
}

function checkArgumentList(list: unknown): PromptArgument[] {
  if (!Array.isArray(list)) throw new Error('"arguments" must be a list of { name, description?, required? }');
  const seen = new Set<string>();
  return list.map((a, i) => {
    if (!isPlainObject(a) || typeof a.name !== 'string' || a.name === '') throw new Error(`arguments[${i}] needs a "name" string`);
    if (seen.has(a.name)) throw new Error(`argument ${JSON.stringify(a.name)} appears twice`);
    seen.add(a.name);
    for (const key of ['title', 'description'] as const)
      if (a[key] !== undefined && typeof a[key] !== 'string') throw new Error(`arguments[${i}].${key} must be a string`);
    if (a.required !== undefined && typeof a.required !== 'boolean') throw new Error(`arguments[${i}].required must be true or false`);
    const arg: PromptArgument = { name: a.name };
    if (a.title !== undefined) arg.title = a.title as string;
    if (a.description !== undefined) arg.description = a.description as string;
    if (a.required !== undefined) arg.required = a.required;
    return arg;
  });
}

/** The schema a plain argument list stands for: strings, the required ones required, nothing else. */
function schemaOf(list: PromptArgument[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const a of list) properties[a.name] = { type: 'string', ...(a.description ? { description: a.description } : {}) };
  const required = list.filter((a) => a.required).map((a) => a.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** The argument list an object schema stands for: its properties, in order, with their titles and descriptions. */
function argumentsOf(schema: Record<string, unknown>): PromptArgument[] {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties).map(([name, sub]) => {
    const arg: PromptArgument = { name };
    if (isPlainObject(sub) && typeof sub.title === 'string') arg.title = sub.title;
    if (isPlainObject(sub) && typeof sub.description === 'string') arg.description = sub.description;
    if (required.includes(name)) arg.required = true;
    return arg;
  });
}
