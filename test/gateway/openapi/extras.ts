import { document } from './helpers.js';

/** Operations on PetstoreApi's routes outside the Petstore document: redirects, 10 MiB answers, silence. */
export function extrasDocument(servers?: string): Record<string, unknown> {
  const object = { type: 'object', properties: { data: { type: 'string' } } };
  return document(
    {
      '/redirect': {
        get: {
          operationId: 'redirect',
          parameters: [{ name: 'to', in: 'query', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'ok' } },
        },
      },
      '/big': {
        get: { operationId: 'bigJson', responses: { '200': { description: 'ok', content: { 'application/json': { schema: object } } } } },
        post: { operationId: 'bigText', responses: { '200': { description: 'ok' } } },
      },
      '/slow': { get: { operationId: 'slow', responses: { '200': { description: 'ok' } } } },
      '/store/inventory': {
        get: { operationId: 'inventory', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } } },
      },
    },
    {
      security: [{ api_key: [] }],
      components: { securitySchemes: { api_key: { type: 'apiKey', in: 'header', name: 'api_key' } } },
      ...(servers ? { servers: [{ url: servers }] } : {}),
    },
  );
}
