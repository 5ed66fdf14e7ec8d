import { scanHeaderParams, type HeaderParam } from '../protocol/header-params.js';
import { toolNameProblem } from '../protocol/names.js';
import { compileSchema, type Validator } from '../schema/compile.js';
import { SchemaError } from '../schema/dialect.js';
import { isStandardSchema, standardToJsonSchema, type StandardSchemaV1 } from '../schema/standard.js';
import { scopeFieldsProblem } from './definition-fields.js';
import type { JsonSchema, Tool } from './tool.js';
import { checkTaskMode } from './primitives/tasks/policy.js';

/**
 * A tool ready to serve: schemas checked and its wire definition serialized,
 * once. Ajv compiles each schema on its validator's first call (start-up stays
 * free of it); `warmValidator` from schema/compile.ts compiles one sooner.
 */
export interface CompiledTool {
  readonly tool: Tool;
  readonly name: string;
  /** The tool's definition exactly as `tools/list` sends it. */
  readonly wireJson: string;
  readonly inputSchema: JsonSchema;
  readonly validateArgs: Validator;
  /** The Standard Schema whose own parse produces the handler's arguments. */
  readonly standardInput?: StandardSchemaV1;
  readonly validateOutput?: Validator;
  readonly headerParams: HeaderParam[];
}

export class ToolDefinitionError extends Error {
  constructor(toolName: unknown, why: string) {
    super(`Invalid tool ${typeof toolName === 'string' && toolName ? JSON.stringify(toolName) : '(unnamed)'}: ${why}`);
    this.name = 'ToolDefinitionError';
  }
}

export function compileTool(tool: Tool): CompiledTool {
  const name = tool?.name;
  const nameProblem = toolNameProblem(name);
  if (nameProblem) throw new ToolDefinitionError(name, nameProblem);
  if (typeof tool.handler !== 'function') throw new ToolDefinitionError(name, 'a handler function is required');
  if (typeof tool.description !== 'string') throw new ToolDefinitionError(name, 'a description string is required');
  if (tool.needsApproval !== undefined && typeof tool.needsApproval !== 'function')
    throw new ToolDefinitionError(name, 'needsApproval must be a function (args) => boolean');
  try {
    checkTaskMode(tool.task, 'task');
  } catch (err) {
    throw new ToolDefinitionError(name, (err as Error).message);
  }

  const standardInput = isStandardSchema(tool.inputSchema) ? tool.inputSchema : undefined;
  const inputSchema = toJsonSchema(name, tool.inputSchema, 'input');
  if (inputSchema.type !== 'object') {
    throw new ToolDefinitionError(name, 'inputSchema must be an object schema ({ "type": "object", ... }) because arguments are always a JSON object');
  }
  const validateArgs = compileOrExplain(name, 'inputSchema', inputSchema, 'arguments');
  const outputSchema = tool.outputSchema === undefined ? undefined : toJsonSchema(name, tool.outputSchema, 'output');
  const validateOutput = outputSchema && compileOrExplain(name, 'outputSchema', outputSchema, 'structuredContent');

  const scopeProblem = scopeFieldsProblem(tool);
  if (scopeProblem) throw new ToolDefinitionError(name, scopeProblem);

  const headers = scanHeaderParams(inputSchema);
  if (!headers.ok) throw new ToolDefinitionError(name, headers.reason);

  const wire: Record<string, unknown> = { name };
  if (tool.title !== undefined) wire.title = tool.title;
  wire.description = tool.description;
  wire.inputSchema = inputSchema;
  if (outputSchema) wire.outputSchema = outputSchema;
  if (tool.annotations) wire.annotations = tool.annotations;
  if (tool.icons) wire.icons = tool.icons;
  if (tool._meta) wire._meta = tool._meta;

  return {
    tool,
    name,
    wireJson: JSON.stringify(wire),
    inputSchema,
    validateArgs,
    standardInput,
    validateOutput,
    headerParams: headers.params,
  };
}

function toJsonSchema(name: string, schema: JsonSchema | StandardSchemaV1 | undefined, which: 'input' | 'output'): JsonSchema {
  try {
    if (isStandardSchema(schema)) return standardToJsonSchema(schema, which);
  } catch (err) {
    throw new ToolDefinitionError(name, `${which}Schema: ${(err as Error).message}`);
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new ToolDefinitionError(name, `${which}Schema must be a JSON Schema object or a Standard Schema (zod, valibot, arktype)`);
  }
  return schema as JsonSchema;
}

function compileOrExplain(name: string, field: string, schema: JsonSchema, root: string): Validator {
  try {
    return compileSchema(schema, { root });
  } catch (err) {
    if (err instanceof SchemaError && err.problems.length > 0) {
      // Each key named where the tool's author wrote it: `inputSchema.properties.a.type: …`.
      throw new ToolDefinitionError(name, err.problems.map((p) => `${field}${p.path && !p.path.startsWith('[') ? '.' : ''}${p.path}: ${p.message}`).join('; '));
    }
    if (err instanceof SchemaError) throw new ToolDefinitionError(name, `${field}: ${err.message}`);
    throw err;
  }
}
