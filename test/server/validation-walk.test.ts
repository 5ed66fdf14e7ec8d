import { describe, expect, it } from 'vitest';
import { MemoryAuditSink } from '../../src/audit/memory-sink.js';
import { LEFT_OUT_KEY, MAX_ENTRIES, redactArguments } from '../../src/audit/redact.js';
import { definePrompt, ToolServer } from '../../src/index.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

type Msg = Record<string, any>;

/** As many names as a 3.9 MiB message carries. */
const NAMES = 300_000;

/**
 * Arguments with NAMES unknown names, as JSON.parse would build them, behind a Proxy that counts
 * the values read: what the server looks at, observed without timing anything.
 */
function hostileArguments() {
  const target: Record<string, string> = {};
  for (let i = 0; i < NAMES; i++) target[`k${i}`] = 'v';
  let read = 0;
  const args = new Proxy(target, {
    get(t, key, receiver) {
      read++;
      return Reflect.get(t, key, receiver);
    },
  });
  return { args, read: () => read };
}

function server() {
  const audit = new MemoryAuditSink();
  const s = new ToolServer({
    logger: memoryLogger().logger,
    audit,
    tasks: false,
    limits: { maxArgumentBytes: 8 * 1024 * 1024 },
    prompts: [definePrompt({ name: 'review', arguments: [{ name: 'who', required: true }], get: ({ who }) => `review ${who}` })],
    tools: [
      {
        name: 'echo',
        description: 'echo',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
        handler: () => 'ok',
      },
    ],
  });
  return { s, audit };
}

/** One request as a transport hands it over, already parsed (a 3.9 MiB message, by its size). */
async function ask(s: ToolServer, method: string, params: Msg): Promise<Msg> {
  const reply = await s
    .connect({ transport: 'test' })
    .receive({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernMeta() } }, { messageBytes: 3_900_000 });
  return JSON.parse(reply!.json);
}

describe('a request with far more argument names than its schema admits', () => {
  it('prompts/get: answered from the first names, naming them and counting the rest, reading no more values than the audit keeps', async () => {
    const { s, audit } = server();
    const { args, read } = hostileArguments();
    const answer = await ask(s, 'prompts/get', { name: 'review', arguments: args });
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toBe(
      `Invalid params for prompt review: arguments.who: required field is missing; ${Array.from({ length: 9 }, (_, i) => `arguments.k${i}: unexpected field (not allowed by the schema)`).join('; ')}; … and ${NAMES + 1 - 10} more problems`,
    );
    // Before: every value was read to check it is a string, and again to redact the audit record.
    expect(read()).toBeLessThanOrEqual(MAX_ENTRIES);
    expect(JSON.parse(audit.records[0].argumentsJson)).toMatchObject({ [LEFT_OUT_KEY]: expect.stringMatching(/more fields left out/) });
    s.close();
  });

  it('tools/call: the same for a tool whose schema is closed', async () => {
    const { s } = server();
    const { args, read } = hostileArguments();
    const answer = await ask(s, 'tools/call', { name: 'echo', arguments: args });
    const text: string = answer.result.content[0].text;
    expect(answer.result.isError).toBe(true);
    expect(text.split('\n').slice(1, 3)).toEqual([
      '- arguments.text: required field is missing',
      '- arguments.k0: unexpected field (not allowed by the schema)',
    ]);
    expect(text.endsWith(`- … and ${NAMES + 1 - 10} more problems`)).toBe(true);
    expect(read()).toBeLessThanOrEqual(MAX_ENTRIES);
    s.close();
  });

  it('a few unknown names still get the full check: each problem, the wrong types too', async () => {
    const { s } = server();
    const answer = await ask(s, 'tools/call', { name: 'echo', arguments: { text: 5, extra: 1 } });
    expect(answer.result.content[0].text).toBe(
      'Invalid arguments for tool echo:\n- arguments.extra: unexpected field (not allowed by the schema)\n- arguments.text: expected string',
    );
    s.close();
  });
});

describe('redacting arguments for the audit trail, logs and spans', () => {
  it(`keeps the first ${MAX_ENTRIES} fields and items and counts the rest, copying only what it walked`, () => {
    const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));
    const kept = redactArguments(many) as Record<string, unknown>;
    expect(Object.keys(kept)).toHaveLength(MAX_ENTRIES + 1);
    expect(kept[LEFT_OUT_KEY]).toBe(`${5_000 - MAX_ENTRIES} more fields left out`);
    const list = redactArguments({ list: Array.from({ length: 5_000 }, (_, i) => i) }) as { list: unknown[] };
    expect(list.list).toHaveLength(MAX_ENTRIES);
    expect(list.list.at(-1)).toBe(`${LEFT_OUT_KEY} ${5_000 - MAX_ENTRIES + 1} more items left out`);
    // Small arguments come back as they were: nothing copied.
    const small = { a: 1, b: [1, 2] };
    expect(redactArguments(small)).toBe(small);
  });
});
