/**
 * The fixture tools the official MCP conformance suite
 * (@modelcontextprotocol/conformance, server leg) calls, served by the normal CLI:
 *
 *   npx toolwright serve --http --port 3000 --tools examples/conformance/tools.ts
 *
 * Plain objects: a tool module needs nothing from toolwright but its shape.
 * Names, texts and payloads are the ones the suite's scenarios check.
 */
const TEST_IMAGE_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const noArgs = { type: 'object', properties: {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Ctx {
  progress(done: number, total?: number, message?: string): void;
  log(level: string, data: unknown): void;
  requireClientCapability(capability: 'sampling' | 'elicitation' | 'roots'): void;
}

export default [
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
];
