/**
 * The fixture tools the official MCP conformance suite
 * (@modelcontextprotocol/conformance, server leg) calls, served by the normal CLI:
 *
 *   npx toolwright serve --http --port 3000 --tools examples/conformance/tools.ts
 *
 * Plain objects: a tool module needs nothing from toolwright but its shape.
 * Names, texts and payloads are the ones the suite's scenarios check.
 */
import { taskTools } from './task-tools.js';
import { addConformancePrimitives } from './primitives.js';

const TEST_IMAGE_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const noArgs = { type: 'object', properties: {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Ctx {
  clientCapabilities: Record<string, unknown>;
  progress(done: number, total?: number, message?: string): void;
  log(level: string, data: unknown): void;
  requireClientCapability(capability: 'sampling' | 'elicitation' | 'roots'): void;
  elicit(message: string, schema: object, options?: { key?: string }): Promise<{ action: string; content?: Record<string, any> }>;
  sample(params: object, options?: { key?: string }): Promise<{ content?: any }>;
  listRoots(options?: { key?: string }): Promise<{ roots: unknown[] }>;
}

const ask = (text: string, maxTokens: number) => ({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens });
const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const confirmSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
const described = (answer: { action: string; content?: unknown }) => `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;

/** The part of the server a tools factory uses here: its live tool registry. */
interface Registry {
  has(name: string): boolean;
  add(...tools: object[]): unknown;
  remove(name: string): boolean;
}

const dynamicTool = {
  name: 'test_dynamic_tool',
  description: 'Appears and disappears with each call of test_trigger_tool_change',
  inputSchema: noArgs,
  handler: () => 'dynamic',
};

// A factory rather than an array: test_trigger_tool_change changes the server's live tool list.
// It registers the fixture resources and prompts too (primitives.ts).
export default (server: Parameters<typeof addConformancePrimitives>[0] & { tools: Registry }) => (
  addConformancePrimitives(server),
  [
    {
      name: 'test_simple_text',
      description: 'Tests simple text content response',
      inputSchema: noArgs,
      handler: () => 'This is a simple text response for testing.',
    },
    {
      name: 'test_image_content',
      description: 'Tests image content response',
      inputSchema: noArgs,
      handler: () => ({ content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }] }),
    },
    {
      name: 'test_audio_content',
      description: 'Tests audio content response',
      inputSchema: noArgs,
      handler: () => ({ content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }] }),
    },
    {
      name: 'test_embedded_resource',
      description: 'Tests embedded resource content response',
      inputSchema: noArgs,
      handler: () => ({
        content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
      }),
    },
    {
      name: 'test_multiple_content_types',
      description: 'Tests response with multiple content types (text, image, resource)',
      inputSchema: noArgs,
      handler: () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
        ],
      }),
    },
    {
      name: 'test_tool_with_logging',
      description: 'Tests tool that emits log messages during execution',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        ctx.log('info', 'Tool execution started');
        await sleep(50);
        ctx.log('info', 'Tool processing data');
        await sleep(50);
        ctx.log('info', 'Tool execution completed');
        return 'Tool with logging executed successfully';
      },
    },
    {
      name: 'test_tool_with_progress',
      description: 'Tests tool that reports progress notifications',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx & { requestId: unknown }) => {
        for (const step of [0, 50, 100]) {
          ctx.progress(step, 100, `Completed step ${step} of 100`);
          if (step < 100) await sleep(50);
        }
        return 'Progress reported in 3 steps';
      },
    },
    {
      name: 'test_error_handling',
      description: 'Tests error response handling',
      inputSchema: noArgs,
      handler: () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
    },
    {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
      handler: (args: unknown) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
    },
    {
      name: 'test_header_param',
      description: 'Mirrors its region argument into the Mcp-Param-Region header (SEP-2243)',
      inputSchema: { type: 'object', properties: { region: { type: 'string', description: 'Region', 'x-mcp-header': 'Region' } }, required: ['region'] },
      handler: ({ region }: { region: string }) => `region=${region}`,
    },
    // Asking the client for input: real requests in the legacy era, InputRequiredResult (MRTR) in the modern one.
    {
      name: 'test_sampling',
      description: 'Tests server-initiated sampling (LLM completion request)',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
      handler: async ({ prompt }: { prompt: string }, ctx: Ctx) => {
        const answer = await ctx.sample(ask(prompt, 100));
        return `LLM response: ${answer.content?.text ?? 'No response'}`;
      },
    },
    {
      name: 'test_elicitation',
      description: 'Tests server-initiated elicitation (user input request)',
      inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
      handler: async ({ message }: { message: string }, ctx: Ctx) => {
        const answer = await ctx.elicit(message, {
          type: 'object',
          properties: { response: { type: 'string', description: "User's response" } },
          required: ['response'],
        });
        return `User response: ${described(answer)}`;
      },
    },
    {
      name: 'test_elicitation_sep1034_defaults',
      description: 'Tests elicitation with default values per SEP-1034',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        const answer = await ctx.elicit('Please review and update the form fields with defaults', {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        });
        return `Elicitation completed: ${described(answer)}`;
      },
    },
    {
      name: 'test_elicitation_sep1330_enums',
      description: 'Tests elicitation with enum schema improvements per SEP-1330',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        const titled = (prefix: string, titles: string[]) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
        const answer = await ctx.elicit('Please select options from the enum fields', {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: titled('value', ['First Option', 'Second Option', 'Third Option']),
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: { anyOf: titled('value', ['First Choice', 'Second Choice', 'Third Choice']) },
            },
          },
          required: [],
        });
        return `Elicitation completed: ${described(answer)}`;
      },
    },
    {
      name: 'test_input_required_result_elicitation',
      description: 'MRTR: returns InputRequiredResult with elicitation request',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        const answer = await ctx.elicit('What is your name?', nameSchema, { key: 'user_name' });
        return `Hello, ${answer.action === 'accept' && typeof answer.content?.name === 'string' ? answer.content.name : 'unknown'}!`;
      },
    },
    {
      name: 'test_input_required_result_sampling',
      description: 'MRTR: returns InputRequiredResult with sampling request',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        const answer = await ctx.sample(ask('What is the capital of France?', 100), { key: 'sample_request' });
        return `Sampling result: ${answer.content?.text ?? ''}`;
      },
    },
    {
      name: 'test_input_required_result_list_roots',
      description: 'MRTR: returns InputRequiredResult with roots/list request',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => `Found ${(await ctx.listRoots({ key: 'roots_request' })).roots.length} root(s)`,
    },
    {
      name: 'test_input_required_result_request_state',
      description: 'MRTR: returns InputRequiredResult with requestState',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        const answer = await ctx.elicit('Please confirm', confirmSchema, { key: 'confirm' });
        return answer.content?.ok === true ? 'state-ok: requestState validated' : 'not confirmed';
      },
    },
    {
      name: 'test_input_required_result_multiple_inputs',
      description: 'MRTR: returns InputRequiredResult with multiple input requests',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        // Asked together, so all three travel in one InputRequiredResult.
        const [user, greeting, roots] = await Promise.all([
          ctx.elicit('What is your name?', nameSchema, { key: 'user_name' }),
          ctx.sample(ask('Generate a greeting', 50), { key: 'greeting' }),
          ctx.listRoots({ key: 'client_roots' }),
        ]);
        return `Name: ${user.content?.name}; Greeting: ${greeting.content?.text}; Roots: ${roots.roots.length}`;
      },
    },
    {
      name: 'test_input_required_result_multi_round',
      description: 'MRTR: multi-round InputRequiredResult workflow',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        const first = await ctx.elicit('Step 1: What is your name?', nameSchema, { key: 'step1' });
        const second = await ctx.elicit(
          'Step 2: What is your favorite color?',
          { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
          { key: 'step2' },
        );
        return `Multi-round complete for ${first.content?.name} who likes ${second.content?.color}`;
      },
    },
    {
      name: 'test_input_required_result_tampered_state',
      description: 'MRTR: HMAC-signed requestState integrity test',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        const answer = await ctx.elicit('Please confirm', confirmSchema, { key: 'confirm' });
        return answer.content?.ok === true ? 'integrity-ok: state verified' : 'not confirmed';
      },
    },
    {
      name: 'test_input_required_result_capabilities',
      description: 'MRTR: respects client capabilities in inputRequests',
      inputSchema: noArgs,
      handler: async (_args: unknown, ctx: Ctx) => {
        // Ask only what the client declared it can answer.
        const asks: Array<Promise<unknown>> = [];
        if (ctx.clientCapabilities.elicitation)
          asks.push(
            ctx.elicit('Elicitation input', { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] }, { key: 'elicit_input' }),
          );
        if (ctx.clientCapabilities.sampling) asks.push(ctx.sample(ask('Sample request', 50), { key: 'sample_input' }));
        if (!asks.length) return 'No supported capabilities declared';
        await Promise.all(asks);
        return `capabilities-ok: received ${asks.length} answer(s)`;
      },
    },
    {
      name: 'test_trigger_tool_change',
      description: 'Adds or removes test_dynamic_tool, so list-change notifications fire',
      inputSchema: noArgs,
      handler: () => {
        if (server.tools.has(dynamicTool.name)) server.tools.remove(dynamicTool.name);
        else server.tools.add(dynamicTool);
        return 'tool list changed';
      },
    },
    // Stateless (2026-07-28) diagnostics.
    {
      name: 'test_missing_capability',
      description: 'Test tool requiring sampling',
      inputSchema: noArgs,
      handler: (_args: unknown, ctx: Ctx) => {
        ctx.requireClientCapability('sampling');
        return 'Success';
      },
    },
    {
      name: 'test_streaming_elicitation',
      description: 'Diagnostic tool validating response progress streams',
      inputSchema: noArgs,
      handler: () => 'Streaming complete',
    },
    {
      name: 'test_logging_tool',
      description: 'Diagnostic logging validator tool',
      inputSchema: noArgs,
      handler: (_args: unknown, ctx: Ctx) => {
        ctx.log('info', 'Logging evaluated');
        return 'Logging evaluated';
      },
    },
    // The tasks extension's fixtures (tasks-* scenarios).
    ...taskTools,
  ]
);
