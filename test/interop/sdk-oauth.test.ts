/**
 * The official SDK client (2.x) with its own OAuth support, against a
 * toolwright server protected by a real authorization server (oidc-provider):
 * it meets the 401, reads the Protected Resource Metadata, discovers the
 * authorization server, gets a client_credentials token for the server's
 * resource, and calls tools; a call that needs more scopes gets the 403
 * challenge and the client steps up. End to end, in both eras.
 */
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpServerHandle } from '../../src/transports/http-server.js';
import { AGENT, startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { serveProtectedNotes, type NoteCall } from '../helpers/protected-notes.js';

let as: LocalAuthorizationServer;
let http: HttpServerHandle;
const calls: NoteCall[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer();
  http = await serveProtectedNotes(as, calls);
});
afterAll(async () => {
  await http?.close();
  await as?.close();
});

describe('@modelcontextprotocol/client 2.x with ClientCredentialsProvider → protected toolwright', () => {
  it.each([
    ['modern', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
    ['legacy', {}],
  ] as const)('%s era: discovers, authorizes, lists, calls, and steps up on 403', async (era, options) => {
    calls.length = 0;
    const authProvider = new ClientCredentialsProvider({ clientId: AGENT.id, clientSecret: AGENT.secret, expectedIssuer: as.issuer });
    const client = new Client({ name: 'oauth-interop', version: '1.0.0' }, options as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { authProvider }), { timeout: 10_000 });
    try {
      expect(client.getProtocolEra()).toBe(era);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['read_notes']); // the first token asked for scopes_supported only
      const read = await client.callTool({ name: 'read_notes', arguments: {} });
      expect(read.content).toEqual([{ type: 'text', text: 'three notes' }]);
      const wrote = await client.callTool({ name: 'write_note', arguments: { text: 'hi' } });
      expect(wrote.content).toEqual([{ type: 'text', text: 'wrote hi' }]);
      expect(calls.map((c) => [c.tool, c.principal])).toEqual([
        ['read_notes', 'agent'],
        ['write_note', 'agent'],
      ]);
      expect(calls[1].scopes).toEqual(expect.arrayContaining(['tools:write']));
    } finally {
      await client.close();
    }
  });
});
