/**
 * The connection doctor (issue 25) against real things on 127.0.0.1: a closed port, an
 * unresolvable name, a web page, a 404, a 401 with Protected Resource Metadata, a
 * self-signed certificate, working servers in both eras, and stdio commands that are
 * missing, die at once, or work.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseConnection, FileTokenStore, type DoctorReport } from '../../src/client.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { freePort } from '../helpers/free-port.js';
import { auditEnv, sharedTempDir } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const options = { stepTimeoutMs: 10_000, totalTimeoutMs: 60_000 };

function step(report: DoctorReport, id: string) {
  const found = report.steps.find((s) => s.id === id);
  if (!found) throw new Error(`no ${id} step in ${JSON.stringify(report.steps)}`);
  return found;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('network failures', () => {
  it('a closed port: TCP refused, with what to check', async () => {
    const port = await freePort();
    const report = await diagnoseConnection({ url: `http://127.0.0.1:${port}/mcp` }, options);
    expect(report.ok).toBe(false);
    expect(step(report, 'dns').status).toBe('ok');
    expect(step(report, 'tcp')).toMatchObject({ status: 'failed', summary: expect.stringContaining('connection refused') });
    expect(step(report, 'tcp').hint).toContain('is the server running');
    expect(report.steps.at(-1)?.id).toBe('tcp');
  });

  it('an unresolvable name: DNS fails', async () => {
    const report = await diagnoseConnection({ url: 'http://no-such-host.invalid/mcp' }, options);
    expect(report.ok).toBe(false);
    expect(step(report, 'dns')).toMatchObject({ status: 'failed', summary: 'the name no-such-host.invalid does not resolve' });
  });

  it('a URL that is not http(s) fails at the first step', async () => {
    const report = await diagnoseConnection({ url: 'ftp://127.0.0.1/mcp' }, options);
    expect(report.steps).toEqual([expect.objectContaining({ id: 'url', status: 'failed' })]);
  });
});

describe('HTTP answers that are not MCP', () => {
  let web: Server;
  let origin: string;
  beforeAll(async () => {
    web = createServer((req, res) => {
      if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Hi</title>\x1b[31m');
      else if (req.url === '/endless/mcp') {
        // An answer that never ends: the doctor must read a little of it and go on.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('x'.repeat(64 * 1024)), 5);
        res.on('close', () => clearInterval(timer));
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    origin = await listen(web);
  });
  afterAll(() => new Promise((resolve) => web.close(resolve)));

  it('an HTML page: "a web page, not an MCP endpoint"', async () => {
    const report = await diagnoseConnection({ url: `${origin}/page` }, options);
    expect(report.ok).toBe(false);
    expect(step(report, 'url').status).toBe('warning');
    expect(step(report, 'http')).toMatchObject({ status: 'failed', summary: expect.stringContaining('this is a web page, not an MCP endpoint') });
    expect(JSON.stringify(report)).not.toContain('\x1b');
  });

  it('an endless answer: read only in part, quoted capped', async () => {
    const report = await diagnoseConnection({ url: `${origin}/endless/mcp` }, options);
    expect(report.ok).toBe(false);
    const http = step(report, 'http');
    expect(http).toMatchObject({ status: 'failed', summary: expect.stringContaining('not an MCP answer') });
    expect(http.detail!.length).toBeLessThanOrEqual(301);
  });

  it('a 404: the wrong path, and /mcp suggested', async () => {
    const report = await diagnoseConnection({ url: `${origin}/api` }, options);
    expect(step(report, 'http')).toMatchObject({ status: 'failed', hint: `MCP servers are usually served at /mcp: try ${origin}/mcp` });
    expect(step(report, 'http').summary).toContain('HTTP 404');
  });
});

describe('a server that wants authorization', () => {
  const tokens = sharedTempDir('toolwright-doctor-tokens-');
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp')
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [origin] }));
      else if (req.url === '/.well-known/oauth-authorization-server')
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            response_types_supported: ['code'],
            code_challenge_methods_supported: ['S256'],
          }),
        );
      else
        res
          .writeHead(401, {
            'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
            'content-type': 'application/json',
          })
          .end('{"error":"unauthorized"}');
    });
    origin = await listen(server);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    tokens.remove();
  });

  it('shows the challenge, the metadata chain and that no credentials were sent', async () => {
    const report = await diagnoseConnection({ url: `${origin}/mcp` }, options);
    expect(report.ok).toBe(false);
    expect(step(report, 'http').summary).toContain('HTTP 401');
    const auth = step(report, 'auth-metadata');
    expect(auth).toMatchObject({ status: 'ok', summary: `OAuth: the authorization server is ${origin}`, hint: `sign in with: toolwright login ${origin}/mcp` });
    expect(auth.detail).toContain('WWW-Authenticate: Bearer');
    expect(auth.detail).toContain(`token endpoint ${origin}/token`);
    expect(step(report, 'token')).toMatchObject({ status: 'failed', summary: 'no credentials: no Authorization header, no stored token' });
  });

  it('a token stored by toolwright login is found under the canonical URL (trailing slash, query), and never shown', async () => {
    const store = new FileTokenStore(join(tokens.dir, 'oauth'));
    await store.saveTokens({
      server: `${origin}/mcp`,
      resource: `${origin}/mcp`,
      issuer: origin,
      clientId: 'doctor-test',
      accessToken: 'stored-access-token-456',
    });
    const report = await diagnoseConnection({ url: `${origin}/mcp/?x=1` }, { ...options, tokenStore: store });
    expect(step(report, 'token')).toMatchObject({ status: 'warning', summary: 'a token stored by toolwright login exists for this server' });
    expect(JSON.stringify(report)).not.toContain('stored-access-token-456');
  });

  it('a refused header is named, and its value never shown', async () => {
    const report = await diagnoseConnection({ url: `${origin}/mcp`, headers: { Authorization: 'Bearer sekrit-value-123' } }, options);
    expect(step(report, 'token')).toMatchObject({ status: 'failed', summary: 'an Authorization header was sent, and refused' });
    expect(JSON.stringify(report)).not.toContain('sekrit-value-123');
  });
});

describe('TLS', () => {
  let server: ReturnType<typeof createHttpsServer> | undefined;
  let origin = '';
  const temp = sharedTempDir('toolwright-doctor-tls-');
  beforeAll(async () => {
    const key = join(temp.dir, 'key.pem');
    const cert = join(temp.dir, 'cert.pem');
    try {
      execFileSync(
        'openssl',
        // An EC key: generated in milliseconds where RSA-2048 takes a tenth of a second or more of CPU; the test is about the self-signature.
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=doctor-self-signed',
        ],
        { stdio: 'ignore' },
      );
    } catch {
      console.warn('SKIPPED the self-signed certificate test: openssl is not available');
      return;
    }
    const { readFileSync } = await import('node:fs');
    server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    temp.remove();
  });

  it('a self-signed certificate is named, with its subject and validity', async (context) => {
    if (!server) return context.skip();
    const report = await diagnoseConnection({ url: `${origin}/mcp` }, options);
    expect(report.ok).toBe(false);
    const tls = step(report, 'tls');
    expect(tls).toMatchObject({ status: 'failed', summary: 'the certificate is self-signed' });
    expect(tls.detail).toContain('subject doctor-self-signed');
    expect(tls.detail).toMatch(/valid .+ to .+/);
    expect(tls.hint).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('plain http to the https port: the HTTP request fails', async (context) => {
    if (!server) return context.skip();
    const report = await diagnoseConnection({ url: `${origin.replace('https', 'http')}/mcp` }, options);
    expect(report.ok).toBe(false);
    expect(step(report, 'tls').status).toBe('skipped');
  });
});

describe('a working toolwright HTTP server', () => {
  let http: HttpServerHandle;
  beforeAll(async () => {
    const tools = [{ name: 'ping_me', description: 'Pings.', inputSchema: { type: 'object' as const }, handler: () => 'pong' }];
    http = await serveHttp(new ToolServer({ name: 'doctor-http', version: '1.2.3', logger: memoryLogger().logger, audit: false, tools }), { port: 0 });
  });
  afterAll(() => http.close());

  it('every step passes, in the modern era', async () => {
    const report = await diagnoseConnection({ url: http.url }, options);
    expect(report.steps.filter((s) => s.status === 'failed')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.steps.map((s) => s.id)).toEqual(['url', 'dns', 'tcp', 'tls', 'http', 'token', 'era', 'tools']);
    expect(step(report, 'era').summary).toMatch(/^modern era, protocol .+, server doctor-http 1\.2\.3$/);
    expect(step(report, 'tools').summary).toBe('1 tool listed');
  });

  it('pinned to the legacy era', async () => {
    const report = await diagnoseConnection({ url: http.url }, { ...options, era: 'legacy' });
    expect(report.ok).toBe(true);
    expect(step(report, 'era').summary).toMatch(/^legacy era, protocol 20\d\d-/);
  });
});

describe('stdio', () => {
  it('a command that does not exist', async () => {
    const report = await diagnoseConnection({ command: 'toolwright-no-such-command-xyz' }, options);
    expect(report).toEqual({
      ok: false,
      steps: [expect.objectContaining({ id: 'spawn', status: 'failed', summary: 'command not found: toolwright-no-such-command-xyz' })],
    });
  });

  it('a command that dies at once: its stderr, cleaned, in the report', async () => {
    const report = await diagnoseConnection(
      { command: process.execPath, args: ['-e', 'process.stderr.write("boom: missing config \\x1b[2J\\n"); process.exit(3)'] },
      options,
    );
    expect(report.ok).toBe(false);
    const era = step(report, 'era');
    expect(era.status).toBe('failed');
    expect(era.detail).toContain('boom: missing config');
    expect(era.detail).not.toContain('\x1b');
    expect(era.hint).toContain('the server process ended');
    expect(step(report, 'tools').status).toBe('skipped');
  });

  it('a command that never answers: the handshake times out, within the bound', async () => {
    const report = await diagnoseConnection(
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      { stepTimeoutMs: 1_500, totalTimeoutMs: 60_000 },
    );
    expect(report.ok).toBe(false);
    expect(step(report, 'era')).toMatchObject({ status: 'failed', hint: expect.stringContaining('the server never answered') });
  });

  it('a working stdio server', async () => {
    const report = await diagnoseConnection(
      { command: process.execPath, args: [join(root, 'dist/cli/main.js'), 'serve', '--tools', join(root, 'test/fixtures/cli/tools.mjs')], env: auditEnv() },
      options,
    );
    expect(report.steps.filter((s) => s.status === 'failed')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(step(report, 'tools').summary).toBe('1 tool listed');
  });
});
