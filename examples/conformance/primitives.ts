/**
 * The fixture resources and prompts the official MCP conformance suite's
 * server leg reads (resources-*, prompts-*, completion-complete,
 * input-required-result-non-tool-request, caching), registered by the tools
 * factory in tools.ts. Plain objects: nothing from toolwright but their shape.
 */
const TEST_IMAGE_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** The part of the server this uses: its live registries. */
interface Server {
  tools: { has(name: string): boolean; add(...tools: object[]): unknown };
  resources: { add(...resources: object[]): unknown; addTemplate(...templates: object[]): unknown; updated(uri: string): void };
  prompts: { has(name: string): boolean; add(...prompts: object[]): unknown; remove(name: string): boolean };
}

interface Ctx {
  elicit(message: string, schema: object, options?: { key?: string }): Promise<{ action: string; content?: Record<string, any> }>;
}

const ARG_VALUES = ['paris', 'park', 'party', 'test', 'testValue1'];

const dynamicPrompt = { name: 'test_dynamic_prompt', description: 'Appears and disappears with each call of test_trigger_prompt_change', get: () => 'dynamic' };

export function addConformancePrimitives(server: Server): void {
  server.resources.add(
    {
      uri: 'test://static-text',
      name: 'static-text',
      description: 'A static text resource',
      mimeType: 'text/plain',
      read: () => 'This is the content of the static text resource.',
    },
    {
      uri: 'test://static-binary',
      name: 'static-binary',
      description: 'A static binary resource',
      mimeType: 'image/png',
      read: () => Buffer.from(TEST_IMAGE_BASE64, 'base64'),
    },
    {
      uri: 'test://watched-resource',
      name: 'watched-resource',
      description: 'A resource to subscribe to',
      mimeType: 'text/plain',
      read: () => 'Watched resource content.',
    },
  );
  server.resources.addTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data for an id',
    mimeType: 'application/json',
    read: (_uri: string, { id }: { id: string }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  });
  server.prompts.add(
    { name: 'test_simple_prompt', description: 'A simple prompt without arguments', get: () => 'This is a simple prompt for testing.' },
    {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: { arg1: (value: string) => ARG_VALUES.filter((v) => v.startsWith(value)) },
      get: ({ arg1, arg2 }: Record<string, string>) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    },
    {
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt embedding a resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      get: ({ resourceUri }: Record<string, string>) => [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: 'Please process the embedded resource above.' },
      ],
    },
    {
      name: 'test_prompt_with_image',
      description: 'A prompt with an image',
      get: () => [
        { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: 'Please analyze the image above.' },
      ],
    },
    {
      name: 'test_input_required_result_prompt',
      description: 'A prompt that asks the user for context first',
      get: async (_args: unknown, ctx: Ctx) => {
        const answer = await ctx.elicit(
          'What context should the prompt use?',
          {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
          { key: 'user_context' },
        );
        return `Use this context: ${answer.content?.context ?? '(none given)'}`;
      },
    },
  );
  if (!server.tools.has('test_trigger_prompt_change')) {
    server.tools.add({
      name: 'test_trigger_prompt_change',
      description: 'Adds or removes test_dynamic_prompt, so listeners hear notifications/prompts/list_changed',
      inputSchema: { type: 'object', properties: {} },
      handler: () => {
        if (server.prompts.has(dynamicPrompt.name)) server.prompts.remove(dynamicPrompt.name);
        else server.prompts.add(dynamicPrompt);
        return 'prompt list changed';
      },
    });
  }
}
