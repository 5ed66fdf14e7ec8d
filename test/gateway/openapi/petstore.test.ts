import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, serveUpstream, textOf, type Served } from './helpers.js';
import { PetstoreApi, SECRETS } from './petstore-api.js';

/**
 * fixtures/petstore.yaml (19 operations, in the Swagger Petstore's shape) served against its
 * real implementation on 127.0.0.1, every call made through a ToolServer and toolwright's
 * client: what the model sees (names, schemas, annotations) and what the API receives.
 */
let api: PetstoreApi;
let served: Served;

beforeAll(async () => {
  api = await new PetstoreApi().start();
  served = await serveUpstream(
    {
      openapi: 'petstore.yaml',
      baseUrl: `${api.url}/v3`,
      credentials: {
        api_key: '${PET_KEY}',
        query_key: SECRETS.queryKey,
        store_token: SECRETS.bearer,
        user_basic: SECRETS.basic,
        session: SECRETS.session,
        petstore_auth: { clientId: SECRETS.clientId, clientSecret: SECRETS.clientSecret },
      },
    },
    FIXTURES,
    { PET_KEY: SECRETS.apiKey },
  );
});

afterAll(async () => {
  await served?.close();
  await api?.close();
});

describe('the Petstore document as tools', () => {
  it('lists 18 tools named by operationId, and says why the octet-stream upload is left out', async () => {
    const tools = await served.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'addPet',
        'createUser',
        'createUsersWithListInput',
        'deleteOrder',
        'deletePet',
        'deleteUser',
        'findPetsByStatus',
        'findPetsByTags',
        'getInventory',
        'getOrderById',
        'getPetById',
        'getUserByName',
        'loginUser',
        'logoutUser',
        'placeOrder',
        'updatePet',
        'updatePetWithForm',
        'updateUser',
      ].sort(),
    );
    expect(served.notes.some((n) => n.includes('POST /pet/{petId}/uploadImage') && n.includes('uploadFile') && n.includes('application/octet-stream'))).toBe(
      true,
    );
    expect(served.notes.some((n) => n.includes('header parameter "Authorization" is ignored'))).toBe(true);
  });

  it('gives annotations from the method and descriptions from summary and description', async () => {
    const tools = await served.client.listTools();
    const get = tools.find((t) => t.name === 'getPetById');
    expect(get?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(get?.title).toBe('Find a pet by id');
    expect(get?.description).toContain('Returns one pet.');
    expect(get?.description).toContain('Calls GET /pet/{petId}.');
    expect(tools.find((t) => t.name === 'deletePet')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(tools.find((t) => t.name === 'updatePet')?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(tools.find((t) => t.name === 'addPet')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(tools.find((t) => t.name === 'findPetsByTags')?.description).toContain('Deprecated');
  });

  it('reads a pet: path parameter from a component, api_key header, JSON as structuredContent', async () => {
    const result = await served.client.callTool('getPetById', { petId: 1 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: 1, name: 'Rex', status: 'available', photoUrls: [], nickname: null, createdAt: '2026-01-02T03:04:05Z' });
    const got = api.received.at(-1);
    expect(got?.target).toBe('/v3/pet/1');
    expect(got?.headers.api_key).toBe(SECRETS.apiKey);
    expect(got?.headers.authorization).toBeUndefined();
  });

  it('adds a pet with a JSON body spread among the arguments, after an OAuth client-credentials token', async () => {
    const result = await served.client.callTool('addPet', { name: 'Fido', status: 'pending', tags: [{ id: 3, name: 'dog' }], nickname: null });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ name: 'Fido', status: 'pending', createdAt: '2026-11-29T00:00:00Z' });
    const token = api.to('oauth', 'token').at(-1);
    expect(new URLSearchParams(token?.body).get('scope')).toBe('write:pets');
    const got = api.to('v3', 'pet').at(-1);
    expect(got?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(got?.body ?? '')).toEqual({ name: 'Fido', status: 'pending', tags: [{ id: 3, name: 'dog' }], nickname: null });
    expect(got?.headers.authorization).toBe(`Bearer ${api.tokensIssued.at(-1)}`);
  });

  it('finds pets by status (an exploded array) and by tags (comma-joined, query API key)', async () => {
    const byStatus = await served.client.callTool('findPetsByStatus', { status: ['available', 'sold'] });
    expect(byStatus.isError).toBeFalsy();
    expect(api.received.at(-1)?.target).toBe('/v3/pet/findByStatus?status=available&status=sold');
    expect(JSON.parse(textOf(byStatus)).map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['Rex', 'Tom']));
    const byTags = await served.client.callTool('findPetsByTags', { tags: ['cat', 'dog'] });
    expect(byTags.isError).toBeFalsy();
    expect(api.received.at(-1)?.target).toBe(`/v3/pet/findByTags?tags=cat%2Cdog&key=${SECRETS.queryKey}`);
    expect(JSON.parse(textOf(byTags))[0].name).toBe('Tom');
  });

  it('updates with a form body whose "status" clashes with a query parameter', async () => {
    const tools = await served.client.listTools();
    const schema = tools.find((t) => t.name === 'updatePetWithForm')?.inputSchema as { properties: Record<string, { description?: string }> };
    expect(Object.keys(schema.properties).sort()).toEqual(['name', 'petId', 'status', 'status_body']);
    expect(schema.properties.status_body.description).toContain('request body property "status"');
    const result = await served.client.callTool('updatePetWithForm', { petId: 2, status: 'audit-7', status_body: 'available', name: 'Tom Cat' });
    expect(result.isError).toBeFalsy();
    const got = api.received.at(-1);
    expect(got?.target).toBe('/v3/pet/2?status=audit-7');
    expect(got?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(got?.body).toBe('name=Tom+Cat&status=available');
    expect(result.structuredContent).toMatchObject({ id: 2, name: 'Tom Cat', status: 'available' });
  });

  it('places, reads and deletes an order with a bearer token; a 204 is a success without content', async () => {
    const placed = await served.client.callTool('placeOrder', { petId: 1, quantity: 2, status: 'placed', shipDate: null });
    expect(placed.isError).toBeFalsy();
    expect(api.received.at(-1)?.headers.authorization).toBe(`Bearer ${SECRETS.bearer}`);
    const id = (placed.structuredContent as { id: number }).id;
    const read = await served.client.callTool('getOrderById', { orderId: id });
    expect(read.structuredContent).toMatchObject({ id, petId: 1, quantity: 2 });
    const deleted = await served.client.callTool('deleteOrder', { orderId: id });
    expect(deleted.isError).toBeFalsy();
    expect(textOf(deleted)).toContain('HTTP 204');
    const again = await served.client.callTool('getOrderById', { orderId: id });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/^HTTP 404 Not Found from GET \/store\/order\/\{orderId\}: \{"message":"Order not found"\}/);
  });

  it('deletes a pet with a header parameter; an Authorization parameter is not offered', async () => {
    const tools = await served.client.listTools();
    const schema = tools.find((t) => t.name === 'deletePet')?.inputSchema as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual(['X-Reason', 'petId']);
    const result = await served.client.callTool('deletePet', { petId: 2, 'X-Reason': 'adopted' });
    expect(result.isError).toBeFalsy();
    expect(api.received.at(-1)?.headers['x-reason']).toBe('adopted');
    expect(api.received.at(-1)?.method).toBe('DELETE');
  });

  it('keeps writeOnly passwords out of output schemas and results; basic auth for updates; path and body "username" both offered', async () => {
    const tools = await served.client.listTools();
    const get = tools.find((t) => t.name === 'getUserByName');
    expect(Object.keys((get?.outputSchema as { properties?: object } | undefined)?.properties ?? {})).toContain('email');
    expect(Object.keys((get?.outputSchema as { properties: object } | undefined)?.properties ?? {})).not.toContain('password');
    const update = tools.find((t) => t.name === 'updateUser')?.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(update.properties)).toEqual(expect.arrayContaining(['username', 'username_body', 'password']));
    expect(update.required).toEqual(['username']);

    const created = await served.client.callTool('createUser', { username: 'bob', password: 'pw1', email: 'bob@example.com' });
    expect(created.structuredContent).toMatchObject({ username: 'bob', email: 'bob@example.com' });
    const renamed = await served.client.callTool('updateUser', { username: 'bob', username_body: 'robert', password: 'pw2' });
    expect(renamed.isError).toBeFalsy();
    const got = api.received.at(-1);
    expect(got?.target).toBe('/v3/user/bob');
    expect(JSON.parse(got?.body ?? '')).toEqual({ username: 'robert', password: 'pw2' });
    expect((await served.client.callTool('getUserByName', { username: 'robert' })).structuredContent).toMatchObject({ username: 'robert' });
    expect((await served.client.callTool('deleteUser', { username: 'robert' })).isError).toBeFalsy();
  });

  it('sends a JSON array body as one "body" argument, and text responses as text', async () => {
    const many = await served.client.callTool('createUsersWithListInput', { body: [{ username: 'c1', password: 'x' }, { username: 'c2' }] });
    expect(many.isError).toBeFalsy();
    expect(JSON.parse(api.received.at(-1)?.body ?? '')).toEqual([{ username: 'c1', password: 'x' }, { username: 'c2' }]);
    const login = await served.client.callTool('loginUser', { username: 'c1', password: 'x' });
    expect(login.isError).toBeFalsy();
    expect(textOf(login)).toBe('logged in user session:c1');
    expect(login.structuredContent).toBeUndefined();
  });

  it('sends the session cookie percent-encoded, so its ";" and "=" stay inside the value', async () => {
    const result = await served.client.callTool('logoutUser', {});
    expect(result.isError).toBeFalsy();
    expect(api.received.at(-1)?.headers.cookie).toBe(`PETSTORE_SESSION=${encodeURIComponent(SECRETS.session)}`);
  });

  it('counts the inventory: a map answer is an object, so it is structuredContent', async () => {
    const result = await served.client.callTool('getInventory', {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ available: expect.any(Number) });
  });

  it('refuses arguments the schema does not allow before any request', async () => {
    const before = api.received.length;
    const result = await served.client.callTool('getOrderById', { orderId: 0 });
    expect(result.isError).toBe(true);
    const unknown = await served.client.callTool('getPetById', { petId: 1, extra: 'x' });
    expect(unknown.isError).toBe(true);
    expect(api.received.length).toBe(before);
  });
});
