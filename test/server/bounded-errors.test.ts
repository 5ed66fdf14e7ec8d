import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boundedError, MAX_ERROR_DATA_CHARS, MAX_ERROR_MESSAGE_CHARS } from '../../src/jsonrpc/error-bounds.js';
import { encodeError } from '../../src/jsonrpc/encode.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../src/server/server.js';
import { memoryLogger, wire } from '../helpers/wire.js';

// Issue 21 #8: a prompts/get with 300,000 unknown argument names (3.9 MiB) was answered with an
// 18.5 MiB error; tools amplified the same way. Answers now list the first few problems and
// count the rest, and every error the server sends is bounded at the encoding edge.
const MANY = 300_000;
const unknownNames = (n: number, value: unknown = 'x') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`unknown_argument_${i}`, value]));

function server() {
  const s = new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    prompts: [
      definePrompt({ name: 'review', description: 'Reviews code', arguments: [{ name: 'code', required: true }], get: ({ code }) => `Review ${code}` }),
      definePrompt({
        name: 'typed',
        description: 'zod arguments',
        argumentsSchema: z.object({ code: z.string() }).strict(),
        get: ({ code }) => `Review ${code}`,
      }),
    ],
  });
  s.tools.add({
    name: 'echo',
    description: 'Echoes text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, numbers: { type: 'array', items: { type: 'number' } } },
      required: ['text'],
      additionalProperties: false,
    },
    handler: ({ text }) => text,
  });
  s.tools.add({
    name: 'strict_zod',
    description: 'zod input',
    inputSchema: z.object({ text: z.string() }).strict(),
    handler: ({ text }) => text,
  });
  return wire(s);
}

/** The wire text of the last answer, as it was sent. */
const lastLine = (w: ReturnType<typeof wire>) => JSON.stringify(w.written.at(-1));

describe('validation errors are bounded', () => {
  it('prompts/get with 300,000 unknown argument names: a few KiB naming the first ten and counting the rest', async () => {
    const w = server();
    await w.initialize();
    const res = await w.request('prompts/get', { name: 'review', arguments: { code: 'x', ...unknownNames(MANY) } });
    expect(res.error.code).toBe(-32602);
    expect(lastLine(w).length).toBeLessThan(4 * 1024);
    expect(res.error.message).toContain('arguments.unknown_argument_0: unexpected field');
    expect(res.error.message).toContain('arguments.unknown_argument_9: unexpected field');
    expect(res.error.message).not.toContain('unknown_argument_10:');
    expect(res.error.message).toContain(`… and ${MANY - 10} more problems`);
  });

  it('a prompt with a Standard Schema (zod) is bounded alike', async () => {
    const w = server();
    await w.initialize();
    const res = await w.request('prompts/get', { name: 'typed', arguments: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`code${i}`, 'x'])) });
    expect(res.error.code).toBe(-32602);
    expect(res.error.message.split(';').length).toBeLessThanOrEqual(11);
  });

  it('tools/call with 50,000 unknown properties, or 100,000 wrong items (as many as fit the 1 MiB argument limit): an isError result of a few KiB', async () => {
    const w = server();
    await w.initialize();
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ text: 'hi', ...Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`u${i}`, 1])) }, 50_000],
      [{ text: 'hi', numbers: Array.from({ length: 100_000 }, () => 'x') }, 100_000],
    ];
    for (const [args, problems] of cases) {
      const res = await w.request('tools/call', { name: 'echo', arguments: args });
      expect(res.result.isError).toBe(true);
      expect(lastLine(w).length).toBeLessThan(4 * 1024);
      const text: string = res.result.content[0].text;
      expect(text.split('\n')).toHaveLength(1 + 10 + 1);
      expect(text).toMatch(new RegExp(`… and ${problems - 10} more problems$`));
    }
  });

  it('a problem with a huge property name or enum is cut', async () => {
    const w = server();
    await w.initialize();
    const res = await w.request('tools/call', { name: 'echo', arguments: { text: 'hi', ['k'.repeat(1_000_000)]: 1 } });
    expect(lastLine(w).length).toBeLessThan(1024);
    expect(res.result.content[0].text).toMatch(/more characters\)/);
  });

  it('a tool with a zod schema lists the first problems of many', async () => {
    const w = server();
    await w.initialize();
    const res = await w.request('tools/call', { name: 'strict_zod', arguments: { text: 1, ...unknownNames(1_000) } });
    expect(res.result.isError).toBe(true);
    expect(lastLine(w).length).toBeLessThan(4 * 1024);
  });
});

describe('every JSON-RPC error is bounded where it is encoded', () => {
  it('cuts a long message and says by how much', () => {
    const sent = JSON.parse(encodeError(1, new RpcError(-32602, 'm'.repeat(1_000_000))));
    expect(sent.error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(sent.error.message).toMatch(/^m+… \(\d+ more characters\)$/);
  });

  it('keeps small data as it is, clips large data, and leaves out what cannot be clipped small', () => {
    expect(boundedError({ code: 1, message: 'x', data: { uri: 'test://a' } })).toEqual({ code: 1, message: 'x', data: { uri: 'test://a' } });
    const clipped = boundedError({ code: 1, message: 'x', data: { uri: 'u'.repeat(100_000), list: Array.from({ length: 10_000 }, (_, i) => i) } });
    expect(JSON.stringify(clipped.data).length).toBeLessThanOrEqual(MAX_ERROR_DATA_CHARS);
    expect((clipped.data as { list: unknown[] }).list).toHaveLength(21);
    const wide = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`k${i}`, Object.fromEntries(Array.from({ length: 20 }, (_, j) => [`k${j}`, 'v'.repeat(500)]))]),
    );
    const dropped = boundedError({ code: 1, message: 'x', data: wide });
    expect(dropped.data).toBeUndefined();
    expect(dropped.message).toBe("x (the error's data was too large to send)");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(boundedError({ code: 1, message: 'x', data: cyclic }).data).toBeUndefined();
  });

  it('bounds an unknown prompt name echoed in the error', async () => {
    const w = server();
    await w.initialize();
    const res = await w.request('resources/read', { uri: `test://${'u'.repeat(2_000_000)}` });
    expect(res.error).toBeDefined();
    expect(lastLine(w).length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + MAX_ERROR_DATA_CHARS + 200);
  });
});
