import { defineTool, ToolError, type Tool } from '../server/tool.js';

/** The tools `toolwright serve` offers when no `--tools` module is given. */
export const calculateSum = defineTool({
  name: 'calculate_sum',
  title: 'Calculate sum',
  description: 'Add two numbers and return their sum.',
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

export const getCurrentTime = defineTool({
  name: 'get_current_time',
  title: 'Get current time',
  description: 'The current date and time, in an IANA time zone such as "Europe/Paris" (default UTC).',
  inputSchema: {
    type: 'object',
    properties: { timezone: { type: 'string', description: 'IANA time zone name, e.g. "America/New_York"', maxLength: 64 } },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { iso: { type: 'string' }, timezone: { type: 'string' }, local: { type: 'string' } },
    required: ['iso', 'timezone', 'local'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: ({ timezone = 'UTC' }) => {
    const zone = canonicalZone(timezone as string);
    const now = new Date();
    const local = new Intl.DateTimeFormat('en-US', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' }).format(now);
    return { content: [{ type: 'text', text: `${local} (${zone})` }], structuredContent: { iso: now.toISOString(), timezone: zone, local } };
  },
});

export const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Return the given text unchanged.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to echo', maxLength: 100_000 } },
    required: ['text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ text }) => text as string,
});

/** Intl knows every IANA zone; an unknown one throws RangeError, which the model can act on. */
function canonicalZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw new ToolError(`Unknown time zone ${JSON.stringify(zone)}. Use an IANA name such as "UTC", "Europe/Paris" or "America/New_York".`);
  }
}

export const demoTools: Tool[] = [calculateSum, getCurrentTime, echo] as Tool[];
