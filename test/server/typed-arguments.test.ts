import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type JsonSchema, type Tool, type ToolContext } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';

/**
 * A handler's arguments take their type from the tool's input schema (issue 22).
 * The types are checked by `npm run typecheck` (tsconfig.test.json): each
 * `@ts-expect-error` below is a use the compiler must refuse, and the build fails
 * if it does not. At run time these tests call the tools, so the types describe
 * what the handler really receives.
 */

const weather = defineTool({
  name: 'weather',
  description: 'Forecast for a city.',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 1 },
      days: { type: 'integer', minimum: 1, maximum: 7, default: 3 },
      units: { type: 'string', enum: ['metric', 'imperial'] },
      tags: { type: 'array', items: { type: 'string' } },
      at: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'], additionalProperties: false },
    },
    required: ['city'],
    additionalProperties: false,
  },
  handler: (args) => {
    expectTypeOf(args).toEqualTypeOf<{
      city: string;
      days?: number;
      units?: 'metric' | 'imperial';
      tags?: string[];
      at?: { lat: number; lon: number };
    }>();
    // Type-checked, never run: uses the compiler must refuse.
    const wrongUses = () => {
      // @ts-expect-error a string has no toFixed
      args.city.toFixed();
      // @ts-expect-error `days` has a default, but the validator does not fill it in: it may be absent
      args.days.toFixed();
      // @ts-expect-error not one of the enum's values
      if (args.units === 'kelvin') return;
      // @ts-expect-error additionalProperties: false, so no other argument exists
      void args.country;
    };
    void wrongUses;
    return `${args.city.toUpperCase()} for ${args.days ?? 3} days in ${args.units ?? 'metric'}${args.at ? ` at ${args.at.lat.toFixed(2)},${args.at.lon.toFixed(2)}` : ''}`;
  },
});

// A schema declared apart from the tool needs `as const` to keep its literal types.
const ECHO_SCHEMA = { type: 'object', properties: { text: { type: 'string' }, times: { type: 'number' } }, required: ['text', 'times'] } as const;

const echo = defineTool({
  name: 'echo',
  description: 'Repeats a text.',
  inputSchema: ECHO_SCHEMA,
  handler: ({ text, times, ...rest }) => {
    expectTypeOf(text).toEqualTypeOf<string>();
    expectTypeOf(times).toEqualTypeOf<number>();
    // Without additionalProperties: false, other arguments may come, of any JSON type.
    expectTypeOf(rest).toEqualTypeOf<{ [key: string]: unknown }>();
    const wrongUses = () => {
      // @ts-expect-error an undeclared argument is unknown, not any
      rest.extra.trim();
    };
    void wrongUses;
    return text.repeat(times);
  },
});

describe('handler arguments typed from a literal JSON Schema', () => {
  it('are what the handler receives once the arguments are valid', async () => {
    const server = new ToolServer({ audit: false, tools: [weather, echo] });
    const pair = await createInMemoryPair(server);
    try {
      expect((await pair.client.callTool('weather', { city: 'Oslo', units: 'imperial', at: { lat: 59.9, lon: 10.75 } })).content).toEqual([
        { type: 'text', text: 'OSLO for 3 days in imperial at 59.90,10.75' },
      ]);
      expect((await pair.client.callTool('echo', { text: 'ab', times: 2 })).content).toEqual([{ type: 'text', text: 'abab' }]);
      // The types hold because the validator runs first: a wrong argument never reaches the handler.
      const refused = await pair.client.callTool('weather', { city: 7 });
      expect(refused.isError).toBe(true);
    } finally {
      await pair.close();
    }
  });
});

describe('schemas that keep their earlier types', () => {
  it('a schema typed JsonSchema (built at run time) gives an object of any values, as before', () => {
    const schema: JsonSchema = { type: 'object', properties: { n: { type: 'number' } } };
    const tool = defineTool({ name: 'loose', description: 'd', inputSchema: schema, handler: (args) => args });
    expectTypeOf(tool.handler).parameter(0).toEqualTypeOf<Record<string, any>>();
  });

  it('so does a literal schema with a part typed JsonSchema', () => {
    const cityProperty: JsonSchema = { type: 'string' };
    const tool = defineTool({
      name: 'mixed',
      description: 'd',
      inputSchema: { type: 'object', properties: { city: cityProperty, days: { type: 'integer' } } },
      handler: (args) => args,
    });
    expectTypeOf(tool.handler).parameter(0).toEqualTypeOf<Record<string, any>>();
  });

  it('a Standard Schema (zod) gives its output type', () => {
    const tool = defineTool({
      name: 'zod',
      description: 'd',
      inputSchema: z.object({ n: z.number(), label: z.string().default('x') }),
      handler: (args) => args,
    });
    expectTypeOf(tool.handler).parameter(0).toEqualTypeOf<{ n: number; label: string }>();
  });

  it('typed tools still go wherever a Tool goes', () => {
    const tools: Tool[] = [weather, echo];
    expectTypeOf(echo.handler).parameter(1).toEqualTypeOf<ToolContext>();
    expect(tools.map((tool) => tool.name)).toEqual(['weather', 'echo']);
  });
});
