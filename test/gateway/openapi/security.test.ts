import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../../../src/gateway/openapi/index.js';
import { extrasDocument } from './extras.js';
import { document, FIXTURES, serveUpstream, TempDocs, textOf } from './helpers.js';
import { OtherOrigin, PetstoreApi, SECRETS } from './petstore-api.js';

/** Credentials reach the API, in the place its security scheme names, and nothing else ever sees them. */
let api: PetstoreApi;
let other: OtherOrigin;
const docs = new TempDocs();

beforeAll(async () => {
  api = await new PetstoreApi().start();
  other = await new OtherOrigin().start();
});

afterAll(async () => {
  await api?.close();
  await other?.close();
  docs.cleanup();
});

const oauth = { petstore_auth: { clientId: SECRETS.clientId, clientSecret: SECRETS.clientSecret } };

describe('OAuth client credentials', () => {
  it('fetches one token for many calls, a new one after the API refuses it, and a new one once it expires', async () => {
    const fresh = await new PetstoreApi().start();
    const served = await serveUpstream({ openapi: 'petstore.yaml', baseUrl: `${fresh.url}/v3`, credentials: oauth, include: { operations: ['addPet'] } });
    const add = async (name: string) => served.client.callTool('addPet', { name });
    try {
      for (const name of ['a', 'b', 'c']) expect((await add(name)).isError).toBeFalsy();
      expect(fresh.tokensIssued).toEqual(['tok-1']);
      const token = fresh.to('oauth', 'token')[0];
      expect(token.headers.authorization).toBe(`Basic ${Buffer.from(`${SECRETS.clientId}:${encodeURIComponent(SECRETS.clientSecret)}`).toString('base64')}`);

      // Refused (401): that call fails, the next one fetches a new token.
      fresh.revoked.add('tok-1');
      expect(textOf(await add('d'))).toContain('HTTP 401');
      expect((await add('e')).isError).toBeFalsy();
      expect(fresh.tokensIssued).toEqual(['tok-1', 'tok-2']);

      // A token said to live 1 s is renewed once that time has passed.
      fresh.tokenLifetime = 1;
      fresh.revoked.add('tok-2');
      await add('f');
      expect((await add('g')).isError).toBeFalsy();
      expect(fresh.tokensIssued).toEqual(['tok-1', 'tok-2', 'tok-3']);
      await sleep(1_100);
      expect((await add('h')).isError).toBeFalsy();
      expect(fresh.tokensIssued).toEqual(['tok-1', 'tok-2', 'tok-3', 'tok-4']);
      expect(fresh.to('v3', 'pet').at(-1)?.headers.authorization).toBe('Bearer tok-4');
    } finally {
      await served.close();
      await fresh.close();
    }
  });

  it('shares one token request among calls made at once', async () => {
    const fresh = await new PetstoreApi().start();
    const served = await serveUpstream({ openapi: 'petstore.yaml', baseUrl: `${fresh.url}/v3`, credentials: oauth, include: { operations: ['addPet'] } });
    try {
      const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((name) => served.client.callTool('addPet', { name })));
      expect(results.every((r) => !r.isError)).toBe(true);
      expect(fresh.to('oauth', 'token')).toHaveLength(1);
    } finally {
      await served.close();
      await fresh.close();
    }
  });

  it('says which scheme failed when the token endpoint refuses, without the secret', async () => {
    const served = await serveUpstream({
      openapi: 'petstore.yaml',
      baseUrl: `${api.url}/v3`,
      credentials: { petstore_auth: { clientId: SECRETS.clientId, clientSecret: 'wrong-secret-value' } },
      include: { operations: ['addPet'] },
    });
    try {
      const before = api.to('v3').length;
      const result = await served.client.callTool('addPet', { name: 'x' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('Could not get an OAuth token for security scheme "petstore_auth"');
      expect(textOf(result)).toContain('HTTP 401 (invalid_client)');
      expect(textOf(result)).not.toContain('wrong-secret-value');
      expect(api.to('v3').length).toBe(before);
    } finally {
      await served.close();
    }
  });
});

describe('credentials go to the API origin only', () => {
  it('does not follow a redirect to another origin: the answer is an error and the other origin sees nothing', async () => {
    const name = docs.write('extras.yaml', extrasDocument());
    const served = await serveUpstream(
      { openapi: name, baseUrl: `${api.url}/v3`, credentials: { api_key: SECRETS.apiKey }, headers: { 'X-Tenant': '${TENANT}' } },
      docs.dir,
      {
        TENANT: 'acme',
      },
    );
    try {
      const result = await served.client.callTool('redirect', { to: `${other.url}/steal` });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('HTTP 302');
      expect(textOf(result)).toContain('redirects are not followed');
      expect(other.received).toHaveLength(0);
      const got = api.to('v3', 'redirect').at(-1);
      expect(got?.headers.api_key).toBe(SECRETS.apiKey);
      expect(got?.headers['x-tenant']).toBe('acme');
    } finally {
      await served.close();
    }
  });

  it('sends only the configured credential where an argument (a parameter, or a key of an exploded object) has its name', async () => {
    // Sent first, the model's api_key or session cookie was the one most APIs read: calls ran as whoever's key the model was given.
    const name = docs.write(
      'shadow.yaml',
      document(
        {
          '/pet/findByStatus': {
            get: {
              operationId: 'find',
              parameters: [
                { name: 'api_key', in: 'query', schema: { type: 'string' } },
                { name: 'filter', in: 'query', schema: { type: 'object', additionalProperties: { type: 'string' } } },
                { name: 'session', in: 'cookie', schema: { type: 'string' } },
                { name: 'theme', in: 'cookie', schema: { type: 'string' } },
              ],
              responses: { '200': { description: 'ok' } },
            },
          },
        },
        {
          components: { securitySchemes: { q: { type: 'apiKey', in: 'query', name: 'api_key' }, c: { type: 'apiKey', in: 'cookie', name: 'session' } } },
          security: [{ q: [], c: [] }],
        },
      ),
    );
    const served = await serveUpstream({ openapi: name, baseUrl: `${api.url}/v3`, credentials: { q: 'configured-key', c: 'configured-session' } }, docs.dir);
    try {
      await served.client.callTool('find', { api_key: 'theirs', filter: { api_key: 'theirs-too', status: 'sold' }, session: 'theirs', theme: 'dark' });
      const sent = api.received.at(-1);
      expect(sent?.query.getAll('api_key')).toEqual(['configured-key']);
      expect(sent?.query.getAll('status')).toEqual(['sold']);
      expect(sent?.headers.cookie).toBe('theme=dark; session=configured-session');
    } finally {
      await served.close();
    }
  });

  it("ignores the document's servers unless allowed: requests go to baseUrl", async () => {
    const name = docs.write('servers.yaml', extrasDocument(`${other.url}/v3`));
    await expect(openApiTools({ openapi: name }, { cwd: docs.dir })).rejects.toThrow(
      'OpenAPI document servers.yaml: set "baseUrl" (the document\'s servers are used only with "useDocumentServers: true").',
    );
    const served = await serveUpstream({ openapi: name, baseUrl: `${api.url}/v3`, credentials: { api_key: SECRETS.apiKey } }, docs.dir);
    try {
      expect((await served.client.callTool('inventory', {})).isError).toBeFalsy();
      expect(other.received).toHaveLength(0);
    } finally {
      await served.close();
    }
  });

  it('uses the first server of the document when useDocumentServers is set and no baseUrl is', async () => {
    const name = docs.write('own-server.yaml', extrasDocument(`${api.url}/v3`));
    const served = await serveUpstream({ openapi: name, useDocumentServers: true, credentials: { api_key: SECRETS.apiKey } }, docs.dir);
    try {
      expect((await served.client.callTool('inventory', {})).structuredContent).toMatchObject({ available: 1 });
    } finally {
      await served.close();
    }
  });

  it('notes schemes without credentials and credentials that name no scheme', async () => {
    const { notes } = await openApiTools({ openapi: 'petstore.yaml', baseUrl: `${api.url}/v3`, credentials: { api_kee: 'x' } }, { cwd: FIXTURES, env: {} });
    expect(notes).toContain('credentials.api_kee names no security scheme of the document; it is never sent');
    expect(notes.some((n) => n.startsWith('security scheme "store_token" has no credentials configured'))).toBe(true);
  });

  it('refuses a ${VAR} that is not set, naming the field and not a value', async () => {
    await expect(
      openApiTools({ openapi: 'petstore.yaml', baseUrl: `${api.url}/v3`, credentials: { store_token: '${NOT_SET}' } }, { cwd: FIXTURES, env: {} }),
    ).rejects.toThrow('credentials.store_token: ${NOT_SET} is not set in the environment.');
  });
});
