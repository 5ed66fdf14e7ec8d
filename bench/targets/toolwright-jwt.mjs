// toolwright with JWT authorization on (HTTP only): the same server as toolwright.mjs, behind
// server.auth. An in-process "issuer" publishes an ES256 key on 127.0.0.1; the server fetches
// it (JWKS), and every request carries a bearer token for this server's resource URI with the
// scope every tool requires, so each call is authenticated, its scopes checked, and tools/list
// filtered per scope set. The token is reported to the harness before the port (TOKEN line);
// after its first verification it is served from the verification cache (never past exp), as
// for a real client that reuses its token.
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { serveHttp } from '../../dist/index.js';
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildToolwrightServer } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('toolwright-jwt is an HTTP target');

const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-key', alg: 'ES256', use: 'sig' };
const jwks = JSON.stringify({ keys: [jwk] });
const issuerServer = createServer((req, res) => {
  if (req.url !== '/jwks') return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
});
await new Promise((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${issuerServer.address().port}`;

const server = buildToolwrightServer(toolCount, { scopes: { defaultScopes: { readOnly: ['tools:call'], other: ['tools:call'] } } });
const handle = await serveHttp(server, {
  host: '127.0.0.1',
  port: 0,
  auth: { issuer, jwksUri: `${issuer}/jwks`, algorithms: ['ES256'] },
});
const token = await new SignJWT({ scope: 'tools:call', client_id: 'bench' })
  .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
  .setIssuer(issuer)
  .setAudience(handle.url)
  .setSubject('bench-client')
  .setIssuedAt()
  .setExpirationTime('6h')
  .sign(privateKey);
exitWhenHarnessGoes({ stdioOwnsInput: false });
process.stdout.write(`TOKEN ${token}\n`);
reportPort(handle.port);
