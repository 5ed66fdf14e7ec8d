import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolDefinitionError } from '../../src/server/compile-tool.js';
import { ToolServer } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { memoryLogger } from '../helpers/wire.js';

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: `the ${name} tool`,
  inputSchema: { type: 'object' },
  handler: () => name,
  ...extra,
});

const newServer = () => new ToolServer({ logger: memoryLogger().logger });

describe('tool registration', () => {
  it.each([[''], ['x'.repeat(129)], ['has space'], ['semi;colon'], ['ünïcode']])('rejects the name %j', (name) => {
    expect(() => newServer().tools.add(tool(name))).toThrow(/Invalid tool/);
  });

  it('accepts names that break plain objects, in registration order', () => {
    const server = newServer();
    server.tools.add(tool('constructor'), tool('__proto__'), tool('10'), tool('a.b-c_d'), tool('x'.repeat(128)));
    expect(server.tools.names()).toEqual(['constructor', '__proto__', '10', 'a.b-c_d', 'x'.repeat(128)]);
    expect(server.tools.get('__proto__')?.name).toBe('__proto__');
  });

  it('rejects duplicates, whether in one call or across calls, and registers nothing from a bad batch', () => {
    const server = newServer();
    server.tools.add(tool('a'));
    expect(() => server.tools.add(tool('a'))).toThrow(/already registered/);
    expect(() => server.tools.add(tool('b'), tool('b'))).toThrow(/already registered/);
    expect(() => server.tools.add(tool('c'), tool('bad name'))).toThrow(/Invalid tool "bad name"/);
    expect(server.tools.names()).toEqual(['a']);
  });

  it('requires an object schema at the root', () => {
    expect(() => newServer().tools.add(tool('a', { inputSchema: { type: 'string' } }))).toThrow(/must be an object schema/);
    expect(() => newServer().tools.add(tool('a', { inputSchema: null as never }))).toThrow(/JSON Schema object/);
  });

  it('rejects schemas that do not compile, naming the field', () => {
    expect(() => newServer().tools.add(tool('a', { inputSchema: { type: 'object', properties: { n: { type: 'nonsense' } } } }))).toThrow(
      /inputSchema\.properties\.n\.type: "nonsense" is not a JSON Schema type/,
    );
    expect(() => newServer().tools.add(tool('a', { outputSchema: { $ref: 'https://evil.example/x' } }))).toThrow(/outputSchema: .*network references/);
  });

  it('rejects, at registration, schemas that pass the meta-schema but could not compile', () => {
    const badPattern = tool('a', { inputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '[a-z' } } } });
    expect(() => newServer().tools.add(badPattern)).toThrow(ToolDefinitionError);
    expect(() => newServer().tools.add(badPattern)).toThrow(
      /inputSchema: the schema does not compile: \/properties\/code\/pattern: Invalid regular expression/,
    );
    const danglingRef = tool('b', { outputSchema: { type: 'object', properties: { r: { $ref: '#/$defs/missing' } } } });
    expect(() => newServer().tools.add(danglingRef)).toThrow(
      /outputSchema: the schema does not compile: \/properties\/r\/\$ref: "#\/\$defs\/missing" does not resolve/,
    );
    const server = newServer();
    expect(() => server.tools.add(tool('ok'), badPattern)).toThrow(ToolDefinitionError);
    expect(server.tools.names()).toEqual([]);
  });

  it('rejects invalid x-mcp-header declarations at registration', () => {
    const inputSchema = { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } };
    expect(() => newServer().tools.add(tool('a', { inputSchema }))).toThrow(/x-mcp-header/);
  });

  it('converts zod schemas to JSON Schema once, at registration', () => {
    const server = newServer();
    server.tools.add(tool('z', { inputSchema: z.object({ city: z.string().describe('City name') }) }));
    expect(server.tools.get('z')?.inputSchema).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'],
    });
  });

  it('bumps the version on every change', () => {
    const server = newServer();
    const v0 = server.tools.version;
    server.tools.add(tool('a'));
    server.tools.remove('a');
    expect(server.tools.version).toBe(v0 + 2);
    expect(server.tools.remove('a')).toBe(false);
  });
});
