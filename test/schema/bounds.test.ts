import { describe, expect, it } from 'vitest';
import { ToolCatalog } from '../../src/client/tool-catalog.js';
import { checkSchemaBounds, DEFAULT_SCHEMA_BOUNDS } from '../../src/schema/bounds.js';
import { compileSchema } from '../../src/schema/compile.js';
import { ToolDefinitionError } from '../../src/server/compile-tool.js';
import { ToolServer } from '../../src/server/server.js';
import { memoryLogger } from '../helpers/wire.js';

// Schema bounds count every part of a schema (issue 18, item 8): a schema
// of primitives alone — a huge enum, const, examples or default, or huge
// strings — is as costly as one of many subschemas.

const MILLION = 1_000_000;
const strings = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
const million = strings(MILLION);
const VALUES = /schema has more than 50000 values \(every member of enum, const, examples and default counts/;
const BYTES = /schema has more than 1048576 bytes of text/;

describe('schema bounds', () => {
  it.each([
    ['a 1,000,000-member enum', { type: 'string', enum: million }],
    [
      'an enum of numbers deep in properties',
      { type: 'object', properties: { mode: { anyOf: [{ type: 'integer', enum: Array.from({ length: 60_000 }, (_, i) => i) }] } } },
    ],
    ['a const array', { const: Array.from({ length: 60_000 }, () => null) }],
    ['examples', { type: 'string', examples: strings(60_000) }],
    ['a default object', { type: 'object', default: Object.fromEntries(strings(60_000).map((k) => [k, true])) }],
    [
      'fewer than 5,000 subschemas, each with many keywords',
      {
        anyOf: Array.from({ length: 4_900 }, () => ({
          type: 'string',
          minLength: 1,
          maxLength: 2,
          pattern: 'a',
          format: 'uri',
          title: 't',
          description: 'd',
          $comment: 'c',
          default: 'x',
          deprecated: false,
        })),
      },
    ],
  ])('refuses %s, naming the limit', (_label, schema) => {
    expect(() => compileSchema(schema)).toThrow(VALUES);
  });

  it.each([
    ['one 2 MiB description', { type: 'string', description: 'x'.repeat(2 * 1024 * 1024) }],
    ['long enum members', { type: 'string', enum: Array.from({ length: 300 }, (_, i) => `${i}`.padEnd(4_000, 'x')) }],
    ['long property names', { type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`${i}`.padEnd(4_000, 'p'), {}])) }],
    ['text that is short in characters but long in UTF-8', { type: 'string', description: '😀'.repeat(300_000) }],
  ])('refuses %s: more text than the limit', (_label, schema) => {
    expect(() => compileSchema(schema)).toThrow(BYTES);
  });

  it('still bounds depth and objects as before', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { anyOf: [deep] };
    expect(() => compileSchema(deep)).toThrow(/deeper than 32 levels/);
    expect(() => compileSchema({ anyOf: Array.from({ length: 6_000 }, () => ({})) })).toThrow(/more than 5000 subschemas/);
  });

  it('accepts large but reasonable schemas: a 10,000-member enum, long descriptions', () => {
    const v = compileSchema({ type: 'object', properties: { zone: { type: 'string', enum: strings(10_000), description: 'd'.repeat(100_000) } } });
    expect(v({ zone: 'v9999' }).ok).toBe(true);
    expect(v({ zone: 'nope' }).ok).toBe(false);
    expect(() => checkSchemaBounds({ enum: strings(DEFAULT_SCHEMA_BOUNDS.maxValues - 2) })).not.toThrow();
    expect(() => checkSchemaBounds({ enum: strings(DEFAULT_SCHEMA_BOUNDS.maxValues - 1) })).toThrow(VALUES);
  });

  it('refuses a tool whose input or output schema is over the bounds when it is registered', () => {
    const server = new ToolServer({ logger: memoryLogger().logger });
    const tool = { name: 'pick', description: 'Picks.', handler: () => 'ok' };
    const huge = { type: 'object', properties: { choice: { type: 'string', enum: million } } };
    expect(() => server.tools.add({ ...tool, inputSchema: huge })).toThrow(ToolDefinitionError);
    expect(() => server.tools.add({ ...tool, inputSchema: huge })).toThrow(/^Invalid tool "pick": inputSchema: schema has more than 50000 values/);
    expect(() => server.tools.add({ ...tool, inputSchema: { type: 'object' }, outputSchema: { type: 'object', examples: million } })).toThrow(
      /^Invalid tool "pick": outputSchema: schema has more than 50000 values/,
    );
    expect(server.tools.size).toBe(0);
  });

  it('leaves out a tool a server lists with schemas over the bounds, in the client', () => {
    const warnings: string[] = [];
    const catalog = new ToolCatalog(false, (m) => warnings.push(m));
    const huge = { type: 'object', properties: { choice: { type: 'string', enum: strings(100_000) } } };
    catalog.replace(
      [
        { name: 'fine', inputSchema: { type: 'object' } },
        { name: 'big-output', inputSchema: { type: 'object' }, outputSchema: huge },
        { name: 'big-input', inputSchema: huge },
      ],
      60_000,
    );
    expect(catalog.list().map((t) => t.name)).toEqual(['fine']);
    expect(catalog.rejection('big-output')).toMatch(/outputSchema cannot be used: schema has more than 50000 values/);
    expect(catalog.rejection('big-input')).toMatch(/inputSchema cannot be used: schema has more than 50000 values/);
    expect(warnings).toHaveLength(2);
  });
});
