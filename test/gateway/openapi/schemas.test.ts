import { afterAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../../../src/gateway/openapi/index.js';
import type { Tool } from '../../../src/server/tool.js';
import { document, FIXTURES, TempDocs } from './helpers.js';

/** What the model is shown: the document's schemas as JSON Schema 2020-12, references inlined. */
const docs = new TempDocs();
afterAll(() => docs.cleanup());

type Schema = Record<string, any>;

async function toolsOf(doc: unknown, extra: Record<string, unknown> = {}): Promise<{ tools: Tool[]; notes: string[]; byName: (name: string) => Tool }> {
  const name = docs.write(`doc-${Math.random().toString(36).slice(2)}.yaml`, doc);
  const { tools, notes } = await openApiTools({ openapi: name, baseUrl: 'http://127.0.0.1:9/api', ...extra }, { cwd: docs.dir });
  const byName = (tool: string) => {
    const found = tools.find((t) => t.name === tool);
    if (!found) throw new Error(`no tool ${tool}; notes: ${notes.join(' | ')}`);
    return found;
  };
  return { tools, notes, byName };
}

const ok = { '200': { description: 'ok' } };

describe('3.0 schemas become JSON Schema 2020-12', () => {
  it('inlines $refs, merges allOf, rewrites nullable and boolean exclusiveMinimum, drops readOnly inputs and x- keywords', async () => {
    const { tools, byName } = await openApiTools({ openapi: 'petstore.yaml', baseUrl: 'http://127.0.0.1:9/v3' }, { cwd: FIXTURES }).then((r) => ({
      ...r,
      byName: (n: string) => r.tools.find((t) => t.name === n) as Tool,
    }));
    expect(tools).toHaveLength(18);
    const update = byName('updatePet').inputSchema as Schema;
    // allOf [{id}, $ref NewPet] merged: one object, both required lists.
    expect(update.required.sort()).toEqual(['id', 'name']);
    expect(update.properties.nickname).toEqual({ type: ['string', 'null'], description: 'What the staff call it, if anything' });
    expect(update.properties.name).toEqual({ type: 'string', examples: ['doggie'] });
    expect(update.properties.createdAt).toBeUndefined(); // readOnly: the server sets it
    // The recursive Category is expanded once; its reference to itself is cut.
    expect(update.properties.category.properties.name).toEqual({ type: 'string' });
    expect(update.properties.category.properties.parent.properties).toBeUndefined();
    expect(update.properties.category.properties.parent.description).toMatch(/^Recursive: the same shape as "#\/components\/schemas\/Category"/);
    expect(JSON.stringify(update)).not.toContain('$ref');

    const order = byName('placeOrder').inputSchema as Schema;
    expect(order.properties.quantity).toEqual({ type: 'integer', format: 'int32', exclusiveMinimum: 0 });
    expect(order.properties.status).toEqual({ type: ['string', 'null'], enum: ['placed', 'approved', 'delivered', null] });
    expect(order.properties.complete).toEqual({ type: 'boolean' }); // its x-mcp-header is gone
    expect(order.additionalProperties).toBe(false);

    const read = byName('getPetById').outputSchema as Schema;
    expect(read.type).toBe('object');
    expect(read.properties.createdAt).toEqual({ type: 'string', format: 'date-time', readOnly: true });
  });

  it('keeps allOf as a composition when its members are not plain objects', async () => {
    const { byName } = await toolsOf(
      document({
        '/x': {
          post: {
            operationId: 'mixed',
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { oneOf: [{ required: ['a'] }, { required: ['b'] }] }] },
                },
              },
            },
            responses: ok,
          },
        },
      }),
    );
    const schema = byName('mixed').inputSchema as Schema;
    expect(schema.properties.body.allOf).toHaveLength(2);
    expect(schema.required).toEqual(['body']);
  });

  it('reads 3.1 documents: type lists, $ref with siblings, const', async () => {
    const { byName } = await toolsOf({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/items/{id}': {
          get: {
            operationId: 'getItem',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { $ref: '#/components/schemas/Id', description: 'The item id' } }],
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } } },
          },
        },
      },
      components: {
        schemas: {
          Id: { type: 'string', pattern: '^[a-z0-9-]+$' },
          Item: { type: 'object', properties: { id: { type: 'string' }, note: { type: ['string', 'null'] }, kind: { const: 'item' } }, required: ['id'] },
        },
      },
    });
    const tool = byName('getItem');
    expect((tool.inputSchema as Schema).properties.id).toEqual({ type: 'string', pattern: '^[a-z0-9-]+$', description: 'The item id', minLength: 1 });
    expect((tool.outputSchema as Schema).properties.note).toEqual({ type: ['string', 'null'] });
  });

  it('cuts a schema that expands past its bounds, and leaves the operation out with a note', async () => {
    // Each level refers to the next one ten times: 10^5 subschemas once inlined.
    const schemas: Record<string, unknown> = { L5: { type: 'string' } };
    for (let level = 4; level >= 0; level--) {
      schemas[`L${level}`] = {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { $ref: `#/components/schemas/L${level + 1}` }])),
      };
    }
    const { tools, notes } = await toolsOf(
      document(
        {
          '/bomb': {
            post: { operationId: 'bomb', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } } }, responses: ok },
          },
          '/fine': { get: { operationId: 'fine', responses: ok } },
        },
        { components: { schemas } },
      ),
    );
    expect(tools.map((t) => t.name)).toEqual(['fine']);
    expect(notes).toEqual([expect.stringMatching(/^skipped POST \/bomb \(bomb\): its schema expands to more than \d+ subschemas/)]);
  });
});

describe('references outside the document are refused', () => {
  it.each([
    ['a network reference', 'https://schemas.example.com/pet.json#/Pet'],
    ['a file reference', './other.yaml#/components/schemas/Pet'],
    ['an absolute file path', '/etc/passwd'],
  ])('%s leaves its operation out with a note; the others stay', async (_, ref) => {
    const { tools, notes } = await toolsOf(
      document({
        '/remote': { post: { operationId: 'remote', requestBody: { content: { 'application/json': { schema: { $ref: ref } } } }, responses: ok } },
        '/local': { get: { operationId: 'local', responses: ok } },
      }),
    );
    expect(tools.map((t) => t.name)).toEqual(['local']);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('skipped POST /remote (remote)');
    expect(notes[0]).toContain('points outside the document; only local references');
  });

  it('notes a local reference that leads nowhere, and a pointer into the prototype', async () => {
    const { tools, notes } = await toolsOf(
      document({
        '/a': { get: { operationId: 'a', parameters: [{ $ref: '#/components/parameters/Missing' }], responses: ok } },
        '/b': { get: { operationId: 'b', parameters: [{ $ref: '#/__proto__/constructor' }], responses: ok } },
      }),
    );
    expect(tools).toHaveLength(0);
    expect(notes).toEqual([expect.stringContaining('points to nothing in the document'), expect.stringContaining('points to nothing in the document')]);
  });
});

describe('names, filters and skipped operations', () => {
  const many = document({
    '/pets': {
      get: { operationId: 'list pets!', tags: ['pets'], responses: ok },
      post: { tags: ['pets', 'write'], responses: ok },
    },
    '/pets/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'getPet', tags: ['pets'], responses: ok },
      delete: { operationId: 'getPet', tags: ['pets', 'write'], responses: ok },
    },
    '/admin/users/{id}': { get: { operationId: 'adminUser', tags: ['admin'], responses: ok } },
    '/upload': {
      put: { operationId: 'upload', requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } }, responses: ok },
    },
  });

  it('makes operationIds valid tool names, names operations without one by method and path, and keeps names unique', async () => {
    const { tools, notes } = await toolsOf(many);
    expect(tools.map((t) => t.name)).toEqual(['list_pets', 'post_pets', 'getPet', 'getPet_2']);
    expect(notes).toContain('DELETE /pets/{id} is named getPet_2: getPet was already taken');
    expect(notes).toContain('skipped GET /admin/users/{id} (adminUser): its path has {id} but no path parameter of that name');
    expect(notes.some((n) => n.startsWith('skipped PUT /upload (upload): its request body is multipart/form-data'))).toBe(true);
  });

  it('includes by method, path glob and tag, and excludes by operation', async () => {
    const byMethod = await toolsOf(many, { include: { methods: ['get'] } });
    expect(byMethod.tools.map((t) => t.name)).toEqual(['list_pets', 'getPet']);
    const byPath = await toolsOf(many, { include: { paths: ['/pets/*'] } });
    expect(byPath.tools.map((t) => t.name)).toEqual(['getPet', 'getPet_2']);
    const deep = await toolsOf(many, { include: { paths: ['/pets/**'] }, exclude: { tags: ['WRITE'] } });
    expect(deep.tools.map((t) => t.name)).toEqual(['getPet']);
    const both = await toolsOf(many, { include: { methods: ['GET', 'POST'], tags: ['pets'] }, exclude: { operations: ['list pets!'] } });
    expect(both.tools.map((t) => t.name)).toEqual(['post_pets', 'getPet']);
  });
});
