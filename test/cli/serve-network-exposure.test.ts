import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkNetworkExposure } from '../../src/cli/network-exposure.js';
import { UsageError } from '../../src/cli/errors.js';
import { buildServer, type ServerPlan } from '../../src/config/build.js';
import { ToolServer } from '../../src/server/server.js';
import { lifecycleTools, startHttpServe, startServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';

const plan = (extra: Partial<ServerPlan> = {}): ServerPlan => ({ server: new ToolServer({ audit: false }), http: {}, ...extra });

describe('serving HTTP beyond loopback without authentication', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])('is not in question on loopback (%s)', (host) => {
    expect(checkNetworkExposure(host, plan(), false)).toBeUndefined();
  });

  it.each(['0.0.0.0', '::', '', '192.168.1.10', '10.0.0.1', 'example.com', 'my-host', '0177.0.0.1', '127.0.0.1.nip.io', '::ffff:7f00:1'])(
    'is refused on %j unless authentication is configured or the operator allows it',
    (host) => {
      expect(() => checkNetworkExposure(host, plan(), false)).toThrow(UsageError);
      expect(checkNetworkExposure(host, plan({ http: { authenticate: () => 'someone' } }), false)).toBeUndefined();
      expect(checkNetworkExposure(host, plan({ http: { auth: { apiKeys: [] } } }), false)).toBeUndefined();
      expect(checkNetworkExposure(host, plan(), true)).toMatch(/^toolwright: warning: serving 0 tool\(s\) on .* without authentication/);
      expect(checkNetworkExposure(host, plan({ allowUnauthenticatedNetwork: true }), false)).toMatch(/without authentication/);
    },
  );

  it('reads server.allowUnauthenticatedNetwork from the config', () => {
    const built = buildServer(
      { server: { audit: false, host: '0.0.0.0', allowUnauthenticatedNetwork: true }, toolsets: { math: {} } },
      tempDir('toolwright-config-'),
      '1.0.0',
    );
    expect(built.allowUnauthenticatedNetwork).toBe(true);
    expect(checkNetworkExposure('0.0.0.0', built, undefined)).toMatch(/serving 2 tool\(s\) on 0\.0\.0\.0 without authentication/);
  });

  it('toolwright serve --host 0.0.0.0 refuses to start, says why and what to do, and exits 1', async () => {
    const serve = startServe(['--http', '--host', '0.0.0.0', '--port', '0', '--tools', lifecycleTools], { cwd: tempDir('toolwright-serve-') });
    const { code } = await serve.exit;
    expect(code).toBe(1);
    expect(serve.stderr()).toBe(
      'toolwright: refusing to serve 3 tool(s) on "0.0.0.0" without authentication: it is not a loopback address, so anyone who can reach it could call every tool. ' +
        'Bind 127.0.0.1 (the default), configure authentication, or, on a network you trust, pass --allow-unauthenticated-network (config: server.allowUnauthenticatedNetwork: true)\n',
    );
  });

  it('with --allow-unauthenticated-network it starts, warns, and serves (traffic to 127.0.0.1 only)', async () => {
    const serve = await startHttpServe(['--host', '0.0.0.0', '--allow-unauthenticated-network', '--tools', lifecycleTools], {
      cwd: tempDir('toolwright-serve-'),
    });
    expect(serve.stderr()).toMatch(/^toolwright: warning: serving 3 tool\(s\) on 0\.0\.0\.0 without authentication/);
    const loopback = serve.url.replace('0.0.0.0', '127.0.0.1');
    expect((await (await serve.call('sleep', { ms: 1 }, loopback)).json()).result.content[0].text).toBe('slept 1 ms');
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
  });

  it('server.allowUnauthenticatedNetwork: true in the config does the same', async () => {
    const cwd = tempDir('toolwright-serve-');
    writeFileSync(
      join(cwd, 'toolwright.config.json'),
      JSON.stringify({ server: { host: '0.0.0.0', allowUnauthenticatedNetwork: true, audit: false }, toolsets: { math: {} } }),
    );
    const serve = await startHttpServe([], { cwd });
    expect(serve.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
  });
});
