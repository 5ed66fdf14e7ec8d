import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { memoryLogger, modernMeta, wire } from '../helpers/wire.js';

/** A small deterministic PRNG, so a failure can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const hostileValues = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  '',
  'x'.repeat(300),
  '__proto__',
  'constructor',
  [],
  [1, [2]],
  {},
  { __proto__: { polluted: 1 } },
  { $ref: 'https://evil.example' },
];

/** Replaces one random node of a valid message with a hostile value. */
function mutate(message: unknown, random: () => number): unknown {
  const copy = JSON.parse(JSON.stringify(message));
  const paths: Array<Array<string | number>> = [[]];
  const walk = (node: unknown, path: Array<string | number>) => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      const next = [...path, Array.isArray(node) ? Number(key) : key];
      paths.push(next);
      walk(child, next);
    }
  };
  walk(copy, []);
  const path = paths[Math.floor(random() * paths.length)];
  const value = hostileValues[Math.floor(random() * hostileValues.length)];
  if (path.length === 0) return value;
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  if (random() < 0.2) delete node[path[path.length - 1]];
  else node[path[path.length - 1]] = value;
  return copy;
}

describe('hostile input', () => {
  it('answers 2,000 mutated messages with well-formed JSON-RPC and keeps serving', async () => {
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false });
    server.tools.add({
      name: 'echo',
      description: 'Echoes text.',
      inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 50 } }, required: ['text'], additionalProperties: false },
      handler: ({ text }) => text,
    });
    const w = wire(server);
    const valid = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: modernMeta({ progressToken: 'p' }) } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'tw1.MA', _meta: modernMeta() } },
      { jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      { jsonrpc: '2.0', id: 4, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'x' } },
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'echo', arguments: {}, inputResponses: { a: { action: 'accept' } }, requestState: 'x.y', _meta: modernMeta() },
      },
    ];
    const random = prng(42);
    for (let i = 0; i < 2000; i++) {
      const message = mutate(valid[i % valid.length], random);
      const text = JSON.stringify(message) ?? 'null';
      w.raw(random() < 0.05 ? text.slice(0, Math.floor(random() * text.length)) : text);
    }
    await new Promise((r) => setTimeout(r, 50));
    // Most mutations keep an id, so most get an answer; many of those are refusals.
    expect(w.written.length).toBeGreaterThan(1_000);
    expect(w.written.filter((line) => 'error' in line).length).toBeGreaterThan(100);
    for (const line of w.written) {
      expect(line.jsonrpc).toBe('2.0');
      const kinds = ['result' in line, 'error' in line, 'method' in line].filter(Boolean);
      expect(kinds).toHaveLength(1);
      if ('error' in line) {
        expect(Number.isInteger(line.error.code)).toBe(true);
        expect(typeof line.error.message).toBe('string');
        expect(line.error.message).not.toMatch(/ at .*\.(ts|js):\d+/); // no stack traces
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Still serving, and answering correctly.
    const answer = await w.modern('tools/call', { name: 'echo', arguments: { text: 'still here' } });
    expect(answer.result.content).toEqual([{ type: 'text', text: 'still here' }]);
  });
});
