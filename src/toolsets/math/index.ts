import { defineTool, ToolError, type Tool } from '../../server/tool.js';
import { evaluate, ExpressionError, LIMITS } from './expression.js';

export const calculate = defineTool({
  name: 'calculate',
  title: 'Calculate',
  description:
    'Evaluates an arithmetic expression exactly as written: + - * / % ^, parentheses, functions (sqrt, abs, exp, ln, log, sin, cos, tan, asin, acos, atan, floor, ceil, round, min, max, pow) and constants (pi, e, tau). Use it instead of doing arithmetic in your head. No side effects.',
  inputSchema: {
    type: 'object',
    properties: { expression: { type: 'string', description: 'e.g. "(2 + 3) * sqrt(16) / 2"', minLength: 1, maxLength: LIMITS.maxLength } },
    required: ['expression'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { expression: { type: 'string' }, result: { type: 'number' } }, required: ['expression', 'result'] },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ expression }) => {
    try {
      const result = evaluate(expression as string);
      return { content: [{ type: 'text', text: String(result) }], structuredContent: { expression, result } };
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      const pointer = `${expression}\n${' '.repeat(err.position)}^`;
      throw new ToolError(`Cannot evaluate the expression: ${err.message} (at character ${err.position + 1}).\n${pointer}`);
    }
  },
});

export const calculateSum = defineTool({
  name: 'calculate_sum',
  title: 'Calculate sum',
  description: 'Adds two numbers and returns their sum. Use it for a single addition. No side effects.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number', description: 'First addend' }, b: { type: 'number', description: 'Second addend' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ a, b }) => {
    const sum = (a as number) + (b as number);
    if (!Number.isFinite(sum)) throw new ToolError('The sum is too large to represent; use smaller numbers.');
    return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
  },
});

/** The math toolset: `calculate`, `calculate_sum`. */
export function mathTools(): Tool[] {
  return [calculate, calculateSum] as Tool[];
}
