import { describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { modernServer, scriptedTransport } from './scripted-server.js';

/** A form whose every field has a default, and two defaults a form may not hold. */
const FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
    verified: { type: 'boolean', default: true },
    colors: { type: 'array', items: { type: 'string' }, default: ['red'] },
    wrongType: { type: 'integer', default: 'thirty' },
    notInEnum: { type: 'string', enum: ['a', 'b'], default: 'c' },
  },
};
const TOOL = { name: 'ask', inputSchema: { type: 'object' } };

/** Asks for FORM once, then reports the content the retry carried. */
function askingServer(seen: unknown[]) {
  return modernServer([TOOL], (params) => {
    if (!params.inputResponses) {
      return { resultType: 'input_required', inputRequests: { form: { method: 'elicitation/create', params: { message: 'Fill in', requestedSchema: FORM } } } };
    }
    seen.push(params.inputResponses.form);
    return { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] };
  });
}

async function callWith(answer: Record<string, unknown>) {
  const seen: unknown[] = [];
  const client = await ToolClient.connect({ transport: scriptedTransport(askingServer(seen)) }, { onInputRequest: () => answer as never, onWarning: () => {} });
  await client.callTool('ask', {});
  await client.close();
  return seen[0] as { action: string; content?: Record<string, unknown> };
}

describe('form defaults an accepted answer left out (elicitation.mdx, SEP-1034)', () => {
  it('fills every field the user did not answer with the default the schema gives', async () => {
    const sent = await callWith({ action: 'accept', content: {} });
    expect(sent).toEqual({ action: 'accept', content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true, colors: ['red'] } });
  });

  it('never replaces a value the user gave, and adds no default a form may not hold', async () => {
    const sent = await callWith({ action: 'accept', content: { name: 'Ada', verified: false } });
    expect(sent.content).toMatchObject({ name: 'Ada', verified: false, age: 30 });
    expect(sent.content).not.toHaveProperty('wrongType');
    expect(sent.content).not.toHaveProperty('notInEnum');
  });

  it('adds nothing to a declined or cancelled answer', async () => {
    expect(await callWith({ action: 'decline' })).toEqual({ action: 'decline' });
    expect(await callWith({ action: 'cancel' })).toEqual({ action: 'cancel' });
  });
});
