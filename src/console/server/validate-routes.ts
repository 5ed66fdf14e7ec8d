import type { CheckAnswer, FieldProblem } from '../api-types.js';
import type { ListedTool } from '../../client/types.js';
import { compileSchema, type Validator } from '../../schema/compile.js';
import type { ApiRoutes } from './api-routes.js';
import { optionalObject, requiredString } from './http-io.js';

/**
 * The server's own checks, for the page: the tool's input schema (and output schema) compiled
 * with toolwright's compiler and described by its formatter, so a form shows the very message
 * the server would answer, before the call. Ajv stays out of the browser (the page's CSP
 * forbids the code generation it needs). Validators are kept per listed tool object: a new
 * listing (list changes) brings new objects and new validators.
 */
const validators = new WeakMap<ListedTool, { input?: Validator; output?: Validator }>();

function validatorOf(tool: ListedTool, which: 'input' | 'output'): Validator | undefined {
  let entry = validators.get(tool);
  if (!entry) validators.set(tool, (entry = {}));
  const schema = which === 'input' ? tool.inputSchema : tool.outputSchema;
  if (!schema) return undefined;
  entry[which] ??= compileSchema(schema, { root: which === 'input' ? 'arguments' : 'structuredContent' });
  return entry[which];
}

function check(validator: () => Validator | undefined, value: unknown): CheckAnswer {
  let outcome: ReturnType<Validator>;
  try {
    const validate = validator();
    if (!validate) return { valid: true, problems: [] };
    outcome = validate(value);
  } catch (err) {
    // A schema the compiler refuses: the page cannot check, the server decides when the call is made.
    return { valid: true, problems: [], unchecked: err instanceof Error ? err.message : String(err) };
  }
  if (outcome.ok) return { valid: true, problems: [] };
  return { valid: false, problems: outcome.problems.map(splitProblem) };
}

/** "arguments.n: must be <= 10" → { path: "arguments.n", message: "must be <= 10" }. */
function splitProblem(problem: string): FieldProblem {
  const match = /^((?:arguments|structuredContent)(?:\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*): (.*)$/s.exec(problem);
  return match ? { path: match[1], message: match[2] } : { path: '', message: problem };
}

export const validateRoutes = {
  'POST validate': async ({ body, session }) => {
    const given = await body();
    const tool = await session.listedTool(requiredString(given, 'tool', 512));
    return check(() => validatorOf(tool, 'input'), optionalObject(given, 'arguments') ?? {});
  },

  'POST check-output': async ({ body, session }) => {
    const given = await body();
    const tool = await session.listedTool(requiredString(given, 'tool', 512));
    if (!tool.outputSchema) return { valid: true, problems: [], noSchema: true };
    return check(() => validatorOf(tool, 'output'), given.structuredContent);
  },
} satisfies ApiRoutes;
