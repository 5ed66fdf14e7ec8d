/**
 * Clients named by the https URL of their metadata document: fetched through the URL policy
 * (here: a test host `public.test` served over TLS on 127.0.0.1, let through by the policy's own
 * options), its client_id must be its URL; a document elsewhere, or naming another id, is not a
 * client; the default policy never fetches this machine.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFacadeServer, type FacadeServer } from './helpers/facade-server.js';
import { APP_REDIRECT, authorizeUrl, pkce, signIn, token } from './helpers/flow.js';
import { startOidcUpstream, UPSTREAM_CLIENT, type UpstreamIdp } from './helpers/oidc-upstream.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'toolsets-net');
const TLS = { cert: readFileSync(join(FIXTURES, 'public-test.pem')), key: readFileSync(join(FIXTURES, 'public-test-key.pem')) };
const CA = readFileSync(join(FIXTURES, 'ca.pem'));

let docs: https.Server;
let port: number;
let idp: UpstreamIdp;
let open: FacadeServer;
let strict: FacadeServer;
const documents = new Map<string, unknown>();

beforeAll(async () => {
  docs = https.createServer(TLS, (req, res) => {
    const doc = documents.get(req.url ?? '');
    if (doc === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  port = (docs.address() as AddressInfo).port;
  const upstream = async (callbackUrl: string, policy: object | undefined) => {
    idp ??= await startOidcUpstream({ callbackUrl });
    return {
      provider: 'oidc' as const,
      issuer: idp.issuer,
      clientId: UPSTREAM_CLIENT.id,
      clientSecret: UPSTREAM_CLIENT.secret,
      ...(policy ? { clientMetadataDocuments: policy } : {}),
    };
  };
  open = await startFacadeServer((cb) =>
    upstream(cb, { allowPrivateNetworks: true, allowedPorts: [port], ca: CA, lookup: async () => [{ address: '127.0.0.1', family: 4 }] }),
  );
  strict = await startFacadeServer((cb) => upstream(cb, undefined));
});
afterAll(async () => {
  await open?.close();
  await strict?.close();
  await idp?.close();
  await new Promise((resolve) => docs?.close(resolve));
});

describe('client ID metadata documents', () => {
  it('a client known only by its document URL signs in and gets a token', async () => {
    const id = `https://public.test:${port}/client.json`;
    documents.set('/client.json', { client_id: id, client_name: 'Doc client', redirect_uris: [APP_REDIRECT], token_endpoint_auth_method: 'none' });
    const { verifier, challenge } = pkce();
    const run = await signIn(open.origin, id, { challenge });
    expect(run.page?.html ?? '').not.toContain('Sign-in failed');
    expect(run.code).toBeTruthy();
    const issued = await token(open.origin, {
      grant_type: 'authorization_code',
      code: run.code!,
      redirect_uri: APP_REDIRECT,
      code_verifier: verifier,
      client_id: id,
    });
    expect(issued.status).toBe(200);
  });

  it('a document naming another client_id, or carrying a secret, is no client', async () => {
    documents.set('/liar.json', { client_id: 'https://elsewhere.example/client.json', redirect_uris: [APP_REDIRECT] });
    documents.set('/secret.json', { client_id: `https://public.test:${port}/secret.json`, client_secret: 'x', redirect_uris: [APP_REDIRECT] });
    for (const path of ['/liar.json', '/secret.json', '/missing.json']) {
      const res = await fetch(
        authorizeUrl(open.origin, { client_id: `https://public.test:${port}${path}`, redirect_uri: APP_REDIRECT, code_challenge: pkce().challenge }),
        {
          redirect: 'manual',
        },
      );
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 400, null]);
    }
  });

  it('the default policy never fetches this machine: a document URL on loopback is refused', async () => {
    const id = `https://127.0.0.1:${port}/client.json`;
    documents.set('/client.json', { client_id: id, redirect_uris: [APP_REDIRECT] });
    const res = await fetch(authorizeUrl(strict.origin, { client_id: id, redirect_uri: APP_REDIRECT, code_challenge: pkce().challenge }), {
      redirect: 'manual',
    });
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
    expect(await res.text()).toContain('does not fetch');
  });
});
