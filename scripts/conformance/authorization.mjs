// The suite's `authorization` command against toolwright's OAuth facade, for scripts/conformance.mjs
// (which passes its own helpers: how to run the suite, judge an exit code, wait for a server).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * The suite's `authorization` command against the authorization-server facade (server.auth.proxy)
 * of `toolwright serve`: its RFC 8414 metadata scenario (~5 s). The provider is never reached (the
 * metadata is toolwright's own). The authorization-code-grant scenario needs a user's browser
 * through consent and a provider login: test/auth-proxy/conformance.test.ts runs it in npm test.
 * The resource URL names the port, so a free one is picked first. True when it failed.
 */
export async function authorizationServerScenarios({ root, workDir, suiteNode, run, report, serverUrl }) {
  const dir = join(workDir, 'authorization-server');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const proxy = {
    provider: 'oidc',
    issuer: 'https://login.example.com',
    clientId: 'toolwright',
    clientSecret: 'unused',
    encryptionKey: 'conformance-only-0123456789abcdef',
  };
  writeFileSync(join(dir, 'toolwright.config.json'), JSON.stringify({ server: { audit: false, auth: { resource: `${origin}/mcp`, proxy } } }));
  const server = spawn(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'serve', '--http', '--host', '127.0.0.1', '--port', String(port), '--config', join(dir, 'toolwright.config.json')],
    {
      stdio: ['ignore', 'inherit', 'pipe'],
      env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: dir },
    },
  );
  let bad = false;
  try {
    await serverUrl(server);
    const scenario = 'authorization-server-metadata-endpoint';
    console.log(`\n▶ conformance authorization --scenario ${scenario} (${origin})`);
    bad = report('authorization', scenario, await run(suiteNode, ['authorization', '--url', origin, '--scenario', scenario, '-o', join(dir, scenario)], dir));
  } finally {
    server.kill('SIGTERM');
    if (server.exitCode === null && server.signalCode === null) await new Promise((resolve) => server.once('exit', resolve));
  }
  return bad;
}

/** A port free now (the facade's resource URL must name it before the server listens). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
