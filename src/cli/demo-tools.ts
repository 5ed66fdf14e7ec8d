import { defineTool, type Tool } from '../server/tool.js';
import { calculateSum } from '../toolsets/math/index.js';
import { getCurrentTime } from '../toolsets/time/index.js';

/** The tools `toolwright serve` offers when no `--tools` module is given. */
export const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Returns the given text unchanged. Use it to test a connection. No side effects.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to echo', maxLength: 100_000 } },
    required: ['text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ text }) => text as string,
});

export const demoTools: Tool[] = [calculateSum, getCurrentTime, echo] as Tool[];
