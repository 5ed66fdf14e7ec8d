import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../src/schema/compile.js';
import { SchemaError } from '../../src/schema/dialect.js';
import { ToolServer } from '../../src/server/server.js';
import type { JsonSchema } from '../../src/server/tool.js';
import { memoryLogger } from '../helpers/wire.js';

const TYPES = 'use one of: string, number, integer, boolean, object, array, null';

/** What registering a tool with these schemas says is wrong. */
function registrationError(schemas: { inputSchema?: JsonSchema; outputSchema?: JsonSchema }): string {
  const server = new ToolServer({ logger: memoryLogger().logger });
  try {
    server.tools.add({ name: 't', description: 'd', inputSchema: { type: 'object' }, handler: () => 'x', ...schemas });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the tool was registered');
}

describe('a tool schema that fails its meta-schema', () => {
  it.each([
    [
      { type: 'object', properties: { a: { type: 'int' } } },
      `inputSchema.properties.a.type: "int" is not a JSON Schema type (did you mean "integer"?); ${TYPES}`,
    ],
    [{ type: 'object', properties: { a: { type: ['string', 'strng'] } } }, `inputSchema.properties.a.type: "strng" is not a JSON Schema type; ${TYPES}`],
    [
      { type: 'object', properties: { a: { type: 'string', required: true } } },
      'inputSchema.properties.a.required: must be an array of property names; to require a property, list it in its object\'s "required" (e.g. "required": ["a"]), not "required": true on the property',
    ],
    [{ type: 'object', required: 'a' }, 'inputSchema.required: must be an array of property names, e.g. ["a"]; got "a"'],
    [
      { type: 'object', properties: [] },
      'inputSchema.properties: must be an object mapping each name to its schema, e.g. { "a": { "type": "string" } }; got []',
    ],
    [{ type: 'object', properties: { type: 'string' } }, 'inputSchema.properties.type: must be a schema such as { "type": "string" }, not just "string"'],
    [
      { type: 'object', properties: { 'x-y': { enum: 'red' } } },
      'inputSchema.properties["x-y"].enum: must be an array of the allowed values, e.g. ["a", "b"]; got "red"',
    ],
    [
      { type: 'object', properties: { a: { type: 'string', format: 5 } } },
      'inputSchema.properties.a.format: must be a string naming a format, e.g. "date-time" or "email"; got 5',
    ],
    [
      { type: 'object', properties: { a: { type: 'array', items: 5, minItems: -1 } } },
      'inputSchema.properties.a.items: must be a schema: an object such as { "type": "string" }, or true/false; got 5; inputSchema.properties.a.minItems: must be a whole number, 0 or more; got -1',
    ],
    [{ type: 'object', anyOf: [{ type: 'object' }, { required: [1] }] }, 'inputSchema.anyOf[1].required: must list property names as strings, each once'],
    [
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"int"},"constructor":"string"}}'),
      `inputSchema.properties.__proto__.type: "int" is not a JSON Schema type (did you mean "integer"?); ${TYPES}; inputSchema.properties.constructor: must be a schema such as { "type": "string" }, not just "string"`,
    ],
  ] as [JsonSchema, string][])('names the key and what is allowed: %j', (inputSchema, expected) => {
    const message = registrationError({ inputSchema });
    expect(message).toBe(`Invalid tool "t": ${expected}`);
    expect(message).not.toMatch(/must be equal to one of the allowed values|must match a schema in anyOf/);
  });

  it('names the outputSchema the same way, and the root key of a schema', () => {
    expect(registrationError({ outputSchema: { type: 'strng' } })).toBe(`Invalid tool "t": outputSchema.type: "strng" is not a JSON Schema type; ${TYPES}`);
  });

  it("keeps Ajv's words, at the key, for a failure it has no wording of its own for", () => {
    const message = registrationError({ inputSchema: { type: 'object', properties: { a: { type: 'string', contentEncoding: 5 } } } });
    expect(message).toBe('Invalid tool "t": inputSchema.properties.a.contentEncoding: properties.a.contentEncoding must be string');
  });

  it('carries the problems on the SchemaError for callers that name the schema themselves', () => {
    let error: unknown;
    try {
      compileSchema({ type: 'object', properties: { a: { type: 'int' } } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).problems).toEqual([
      { path: 'properties.a.type', message: `"int" is not a JSON Schema type (did you mean "integer"?); ${TYPES}` },
    ]);
    expect((error as SchemaError).message).toBe(
      `the schema is invalid: properties.a.type: "int" is not a JSON Schema type (did you mean "integer"?); ${TYPES}`,
    );
  });
});
