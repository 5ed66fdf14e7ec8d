import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import { ToolServer } from '../../src/server/server.js';
import { httpTools } from '../../src/toolsets/http/index.js';
import { startHttp } from '../helpers/http.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { tempDir } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';

// The client's token is for this server only (authorization/security-considerations "Access
// Token Privilege Restriction": no passthrough); it must not leak into upstream requests, the
// audit trail or the logs.
let as: LocalAuthorizationServer;
let upstream: ReturnType<typeof createServer>;
let upstreamPort = 0;
const seenUpstream: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer();
  upstream = createServer((req, res) => {
    seenUpstream.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('upstream says hi');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => upstream?.close(resolve));
  await as?.close();
});

describe("the client's token", () => {
  it('is not forwarded by fetch_url, nor written to the audit trail or the logs', async () => {
    const auditFile = join(tempDir('toolwright-token-hygiene-'), 'audit.jsonl');
    const logs = memoryLogger();
    const server = new ToolServer({
      logger: logs.logger,
      audit: new JsonlAuditSink(auditFile),
      tools: httpTools({ allowedCidrs: ['127.0.0.1/32'], allowedPorts: [upstreamPort] }),
    });
    const http = await startHttp(server, { auth: { issuer: as.issuer } });
    try {
      const { access_token } = await as.token({ resource: http.url });
      const good = await http.modern(
        'tools/call',
        { name: 'fetch_url', arguments: { url: `http://127.0.0.1:${upstreamPort}/x` } },
        { authorization: `Bearer ${access_token}` },
      );
      const result = (await good.json()).result;
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result)).toContain('upstream says hi');
      // A refused one too: an expired-looking, tampered token is logged nowhere either.
      const tampered = `${access_token.slice(0, -4)}AAAA`;
      expect((await http.modern('tools/list', {}, { authorization: `Bearer ${tampered}` })).status).toBe(401);
      server.close();
      expect(seenUpstream).toHaveLength(1);
      expect(seenUpstream[0].authorization).toBeUndefined();
      expect(JSON.stringify(seenUpstream)).not.toContain(access_token.split('.')[2]);
      const audit = readFileSync(auditFile, 'utf8');
      expect(audit).toContain('"principal":"agent"');
      for (const secret of [access_token, access_token.split('.')[2], tampered]) {
        expect(audit).not.toContain(secret);
        expect(JSON.stringify(logs.records)).not.toContain(secret);
      }
    } finally {
      await http.close();
    }
  });
});
